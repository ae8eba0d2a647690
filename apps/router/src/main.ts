import { join } from "node:path";
import { ensureWritableDir, runMain, startProgram, systemClock } from "@phonework/runtime";
import { selectChatAdapters } from "./chat/select-adapters.ts";
import { createTerminalAdapter } from "./chat/terminal-adapter.ts";
import { RouterConfigSchema } from "./config.ts";
import { createRouter, type Router } from "./create-router.ts";
import { runPairCommand } from "./pair-cli.ts";
import { openRouterDatabase, routerDatabasePath } from "./state/router-db.ts";

// `pnpm router`: the public router. With no chat platform configured it chats on the terminal.
// `pnpm router pair <name>`: prints a join code for a new host and exits.
runMain(async () => {
  const { config, logger, secrets } = startProgram(RouterConfigSchema, "phonework-router");
  ensureWritableDir(config.DATA_DIR);
  const [command, ...args] = process.argv.slice(2).filter((_arg, i, all) => !isConfigFlag(all, i));
  if (command === "pair") {
    runPairCommand(config, args, process.stdout);
    return;
  }

  let router: Router | undefined;
  const shutdown = async (reason: string, waitForReplies = false) => {
    logger.info({ reason }, "stopping router");
    // Piped input: every line gets its answer, however long it takes. A signal: a bounded drain.
    if (waitForReplies) await router?.dispatcher.drain();
    await router?.close();
    process.exit(0);
  };
  // One router.db for the router and its chat adapters; the router closes it.
  const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  const chat = selectChatAdapters(config, {
    logger,
    clock: systemClock,
    db,
    terminal: () =>
      createTerminalAdapter({
        input: process.stdin,
        output: process.stdout,
        filesDir: join(config.DATA_DIR, "files"),
        onEnd: () => void shutdown("end of input", true),
      }),
  });
  router = createRouter(config, { logger, chat, secrets, db });
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  await router.start();
});

/** `--config file` is the config loader's; everything else is the command line. */
function isConfigFlag(argv: readonly string[], index: number): boolean {
  const arg = argv[index] ?? "";
  return arg === "--config" || arg.startsWith("--config=") || argv[index - 1] === "--config";
}
