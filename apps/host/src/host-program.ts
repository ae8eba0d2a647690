import {
  ensureWritableDir,
  leavePackageManagerEnvironment,
  lockDataDir,
  type ProgramArgs,
  startProgram,
} from "@phonework/runtime";
import { ensureWorkingDir, HostConfigSchema } from "./config/host-config.ts";
import { createHost } from "./create-host.ts";
import { resolveIdentity } from "./identity/resolve-identity.ts";
import { routerTlsFromConfig } from "./link/router-tls-config.ts";

// `phonework host`: one host client, dialing out to ROUTER_URL. `--join <code>` pairs it first.
export async function runHost(args: ProgramArgs): Promise<void> {
  leavePackageManagerEnvironment(); // the commands this host runs are the user's own
  const { config: loaded, openLog } = startProgram(HostConfigSchema, "phonework-host", args);
  ensureWritableDir(loaded.DATA_DIR);
  ensureWorkingDir(loaded);
  lockDataDir(loaded.DATA_DIR, "phonework-host"); // released at exit
  const { logger } = await openLog({ toFile: false }); // a host never chats: its log is on stderr
  const { nodeId, identity, replacing } = resolveIdentity(loaded);
  if (replacing) logger.warn(replacing);
  const config = { ...loaded, NODE_ID: nodeId };
  const where = { workingDir: config.WORKING_DIR, dataDir: config.DATA_DIR, routerUrl: config.ROUTER_URL };
  logger.info({ nodeId, ...where }, `host ${nodeId} starting: working in ${where.workingDir}`);
  const host = createHost(config, {
    logger,
    ...(identity ? { identity } : {}),
    tls: routerTlsFromConfig(config),
    // A key or a join code refused is final (revoked, forgotten; a code used, expired, mistyped):
    // say what happened and how to pair again, and stop instead of retrying forever.
    onRefused: (reason) => {
      if (!identity) return; // a shared secret: the router on this machine may be restarting with another
      logger.error({ reason }, refusalText(nodeId, identity.joinCode !== undefined));
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

/** The one line a refused host stops with: what happened, and the exact steps to pair again. */
function refusalText(nodeId: string, joining: boolean): string {
  const again =
    `ask an admin for a join code (/pair ${nodeId} in chat, or \`phonework pair ${nodeId}\` on the router), ` +
    "then start this host once with `phonework host --join <code>`";
  return joining
    ? `the router refused the join code (used, expired or mistyped); ${again}`
    : `the router refused this node's key: ${nodeId} was revoked, or the router no longer knows it; to pair it again, ${again}`;
}
