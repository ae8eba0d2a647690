import {
  ensureWritableDir,
  leavePackageManagerEnvironment,
  lockDataDir,
  type ProgramArgs,
  startProgram,
} from "@phonework/runtime";
import { StandaloneConfigSchema } from "./config.ts";
import { startStandalone } from "./standalone.ts";

// `phonework standalone`: everything on one machine, chatting on this terminal. Zero config needed.
export async function runStandalone(args: ProgramArgs): Promise<void> {
  leavePackageManagerEnvironment(); // the commands this host runs are the user's own
  const { config, openLog } = startProgram(StandaloneConfigSchema, "phonework", args);
  ensureWritableDir(config.DATA_DIR);
  lockDataDir(config.DATA_DIR, "phonework-standalone"); // released at exit
  // The terminal is the chat: the log goes to DATA_DIR/logs/phonework.log, warnings to stderr.
  const { logger, file } = await openLog({ toFile: true });

  const app = await startStandalone(config, { logger, input: process.stdin, output: process.stdout });
  logger.info({ nodeUrl: app.router.nodeUrl, nodeId: config.NODE_ID }, "standalone ready");
  if (process.stdin.isTTY) {
    process.stdout.write(
      `PhoneWork standalone: node "${config.NODE_ID}" is online. Type /help, Ctrl-D to quit. Log: ${file}\n`,
    );
  }
  const quit = () => void app.stop().then(() => process.exit(0));
  process.once("SIGINT", quit);
  process.once("SIGTERM", quit);
  await app.finished;
  process.exit(0);
}
