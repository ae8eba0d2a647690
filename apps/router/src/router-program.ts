import { join } from "node:path";
import {
  ensureWritableDir,
  loadConfig,
  lockDataDir,
  type ProgramArgs,
  startProgram,
  systemClock,
} from "@phonework/runtime";
import { RouterConfigSchema } from "./config/router-config.ts";
import { chooseChat, selectChatAdapters } from "./config/select-adapters.ts";
import { createRouter, type Router } from "./create-router.ts";
import { openRouterDatabase, routerDatabasePath } from "./database/router-db.ts";
import { createTerminalAdapter } from "./platforms/stdin/stdin-adapter.ts";
import { listenFailure } from "./program/listen-failure.ts";
import { reloadLogLevel } from "./program/reload-log-level.ts";

// `phonework router`: the public router, chatting where CHAT says (see selectChatAdapters);
// headless, it runs until SIGTERM or SIGINT. Exit 0 only for a requested stop (a signal, or the end
// of input of the terminal chat); every failure exits non-zero. SIGHUP reloads LOG_LEVEL.
export async function runRouter(args: ProgramArgs): Promise<void> {
  const { config, secrets, openLog } = startProgram(RouterConfigSchema, "phonework-router", args);
  ensureWritableDir(config.DATA_DIR);
  lockDataDir(config.DATA_DIR, "phonework-router"); // released at exit; `pair` above runs beside a live router
  const stdinIsTerminal = process.stdin.isTTY === true;
  // Chatting on the terminal: the log goes to DATA_DIR/logs/phonework-router.log and a terminal's
  // stderr shows warnings only. A redirected stderr (a pipe, a file, a supervisor) is not on screen
  // beside the chat, so it keeps the whole log, as without the terminal chat.
  const { logger } = await openLog({
    toFile: chooseChat(config, stdinIsTerminal).terminal,
    stderrLevel: process.stderr.isTTY ? "warn" : "trace",
  });

  let router: Router | undefined;
  let stopping = false;
  // A signal and the end of input can both ask; the router is closed once.
  const shutdown = async (reason: string, waitForReplies = false) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, "stopping router");
    try {
      // Piped input: every line gets its answer, however long it takes. A signal: a bounded drain.
      if (waitForReplies) await router?.dispatcher.drain();
      await router?.close();
    } catch (error) {
      logger.error({ err: error }, "router did not close cleanly");
      process.exit(1);
    }
    process.exit(0);
  };
  // One router.db for the router and its chat adapters; the router closes it.
  const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  const chat = await selectChatAdapters(config, {
    logger,
    clock: systemClock,
    db,
    stdinIsTerminal,
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
  // Same sources as at start: the flags, this environment, the --config file (or PHONEWORK_CONFIG).
  const reload = () => loadConfig(RouterConfigSchema, { ...args, env: process.env }).config;
  process.on("SIGHUP", () => reloadLogLevel(reload, logger));
  await router.listen().catch((error: unknown) => {
    throw listenFailure(error, config.ROUTER_HOST, config.ROUTER_PORT);
  });
  await router.startChat();
}
