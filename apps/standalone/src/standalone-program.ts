import { ensureWorkingDir } from "@phonework/host";
import {
  ensureWritableDir,
  leavePackageManagerEnvironment,
  lockDataDir,
  type ProgramArgs,
  startProgram,
} from "@phonework/runtime";
import { StandaloneConfigSchema } from "./config.ts";
import { standaloneChat, startStandalone } from "./standalone.ts";

// `phonework standalone`: everything on one machine. Zero config needed: it chats on this terminal,
// or on the configured platforms (Feishu, Telegram), like the router; CHAT=terminal, on both.
// Chatting on the terminal it stops at the end of input (exit 0); otherwise it runs until SIGTERM
// or SIGINT (exit 0).
export async function runStandalone(args: ProgramArgs): Promise<void> {
  leavePackageManagerEnvironment(); // the commands this host runs are the user's own
  const { config, secrets, openLog } = startProgram(StandaloneConfigSchema, "phonework", args);
  ensureWritableDir(config.DATA_DIR);
  ensureWorkingDir(config);
  lockDataDir(config.DATA_DIR, "phonework-standalone"); // released at exit
  const chat = standaloneChat(config);
  // The terminal is the chat: the log goes to DATA_DIR/logs/phonework.log, warnings to stderr.
  // Any other chat leaves the terminal to the log: all of it goes to stderr, as the router's does.
  const { logger, file } = await openLog({ toFile: chat.terminal });

  const app = await startStandalone(config, {
    logger,
    secrets,
    input: process.stdin,
    output: process.stdout,
  });
  const ready = {
    nodeUrl: app.router.nodeUrl,
    nodeId: config.NODE_ID,
    workingDir: config.WORKING_DIR,
    dataDir: config.DATA_DIR,
  };
  if (chat.platforms.length > 0) {
    const webhooks = app.webhooks.length > 0 ? { webhooks: app.webhooks } : {};
    const platforms = chat.platforms.map((spec) => `${spec.name} (${spec.type}, ${spec.settings.mode})`);
    logger.info({ ...ready, platforms, ...webhooks }, "standalone serving chat platforms");
  } else logger.info(ready, "standalone ready");
  if (app.webhooks.length > 0 && config.ROUTER_PORT === 0)
    logger.warn(
      { webhooks: app.webhooks },
      "ROUTER_PORT is not set, so the webhook's port changes at every start: set ROUTER_PORT to keep the platform's request URL working",
    );
  if (chat.terminal && process.stdin.isTTY) {
    process.stdout.write(
      `PhoneWork standalone: node "${config.NODE_ID}" is online, working in ${config.WORKING_DIR} ` +
        `(data in ${config.DATA_DIR}). Type /help, Ctrl-D to quit. Log: ${file}\n`,
    );
  }
  const quit = () => void app.stop().catch(() => undefined); // a failed stop rejects `finished`
  process.once("SIGINT", quit);
  process.once("SIGTERM", quit);
  await app.finished;
  process.exit(0);
}
