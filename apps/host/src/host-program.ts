import {
  ensureWritableDir,
  leavePackageManagerEnvironment,
  lockDataDir,
  type ProgramArgs,
  startProgram,
} from "@phonework/runtime";
import { HostConfigSchema } from "./config/host-config.ts";
import { createHost } from "./create-host.ts";
import { resolveIdentity } from "./identity/resolve-identity.ts";
import { routerTlsFromConfig } from "./link/router-tls-config.ts";

// `phonework host`: one host client, dialing out to ROUTER_URL. `--join <code>` pairs it first.
export async function runHost(args: ProgramArgs): Promise<void> {
  leavePackageManagerEnvironment(); // the commands this host runs are the user's own
  const { config: loaded, openLog } = startProgram(HostConfigSchema, "phonework-host", args);
  ensureWritableDir(loaded.DATA_DIR);
  lockDataDir(loaded.DATA_DIR, "phonework-host"); // released at exit
  const { logger } = await openLog({ toFile: false }); // a host never chats: its log is on stderr
  const { nodeId, identity } = resolveIdentity(loaded);
  const config = { ...loaded, NODE_ID: nodeId };
  const host = createHost(config, {
    logger,
    ...(identity ? { identity } : {}),
    tls: routerTlsFromConfig(config),
    // A join code refused is final (used, expired, mistyped): say so and stop, do not retry.
    onRefused: (reason) => {
      // Still holding the code: this was the join (the code is cleared once it is accepted).
      if (identity?.joinCode === undefined) return;
      logger.error({ reason }, "the router refused the join code; ask an admin for a new one (/pair)");
      void host.stop().then(() => process.exit(2));
    },
  });
  host.start();
  const shutdown = async (signal: string) => {
    logger.info({ signal }, "stopping host");
    await host.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  await host.ready();
}
