import { ensureWritableDir, runMain, startProgram } from "@phonework/runtime";
import { HostConfigSchema } from "./config.ts";
import { createHost } from "./create-host.ts";

// `pnpm host`: one host client, dialing out to ROUTER_URL.
runMain(async () => {
  const { config, logger } = startProgram(HostConfigSchema, "phonework-host");
  ensureWritableDir(config.DATA_DIR);
  const host = createHost(config, { logger });
  host.start();
  const shutdown = async (signal: string) => {
    logger.info({ signal }, "stopping host");
    await host.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  await host.ready();
});
