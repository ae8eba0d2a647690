import { join } from "node:path";
import { ensureWritableDir, runMain, startProgram, systemClock } from "@phonework/runtime";
import { selectChatAdapters } from "./chat/select-adapters.ts";
import { createTerminalAdapter } from "./chat/terminal-adapter.ts";
import { RouterConfigSchema } from "./config.ts";
import { createRouter, type Router } from "./create-router.ts";

// `pnpm router`: the public router. With no chat platform configured it chats on the terminal.
runMain(async () => {
  const { config, logger } = startProgram(RouterConfigSchema, "phonework-router");
  ensureWritableDir(config.DATA_DIR);

  let router: Router | undefined;
  const shutdown = async (reason: string, waitForReplies = false) => {
    logger.info({ reason }, "stopping router");
    // Piped input: every line gets its answer, however long it takes. A signal: a bounded drain.
    if (waitForReplies) await router?.dispatcher.drain();
    await router?.close();
    process.exit(0);
  };
  const chat = selectChatAdapters(config, {
    logger,
    clock: systemClock,
    terminal: () =>
      createTerminalAdapter({
        input: process.stdin,
        output: process.stdout,
        filesDir: join(config.DATA_DIR, "files"),
        onEnd: () => void shutdown("end of input", true),
      }),
  });
  router = createRouter(config, { logger, chat });
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  await router.start();
});
