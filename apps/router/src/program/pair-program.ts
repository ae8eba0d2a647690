import {
  ConfigError,
  ensureWritableDir,
  type ProgramArgs,
  startProgram,
  systemClock,
} from "@phonework/runtime";
import { routerAdmins } from "../access/adapter-access.ts";
import { adapterSpecs } from "../config/adapter-specs.ts";
import { qualify } from "../config/qualify-ids.ts";
import type { RouterConfig } from "../config/router-config.ts";
import { RouterConfigSchema } from "../config/router-config.ts";
import { openRouterDatabase, routerDatabasePath } from "../database/router-db.ts";
import { TERMINAL_USER } from "../ids/qualified-id.ts";
import { NodeStore } from "../pairing/node-store.ts";
import { PairingService } from "../pairing/pairing-service.ts";

// `phonework pair <name> [--owner <user id>]`: a join code for the first host, from the router's
// own machine, before any chat is set up. It writes to router.db beside a running router (same
// DATA_DIR, so it does not take the lock); the router reads codes from there at each join. The
// code is printed alone on the last line of stdout, so scripts can take it with `tail -n 1`.

export async function runPair(
  args: ProgramArgs,
  request: { name: string; owner?: string | undefined },
  out: NodeJS.WritableStream,
): Promise<void> {
  const { config, openLog } = startProgram(RouterConfigSchema, "phonework-router", args);
  ensureWritableDir(config.DATA_DIR);
  await openLog({ toFile: false }); // only to warn about a config file's unknown keys
  printJoinCode(config, request, out);
}

export function printJoinCode(
  config: RouterConfig,
  request: { name: string; owner?: string | undefined },
  out: NodeJS.WritableStream,
): void {
  const { name } = request;
  const specs = adapterSpecs(config);
  const owner = request.owner
    ? qualify(
        request.owner,
        specs.map((spec) => spec.name),
        "--owner",
      )
    : defaultOwner(specs);
  if (!owner)
    throw new ConfigError(
      "pair: who owns this node? Pass --owner <chat user id>, or set ADMINS (or a single ALLOWED_USERS entry)",
    );
  const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  try {
    const pairing = new PairingService({
      store: new NodeStore(db),
      joinCodeTtlMs: config.JOIN_CODE_TTL_S * 1000,
      now: () => systemClock.now(),
    });
    const result = pairing.pair(name, owner);
    if (!result.ok) throw new ConfigError(`pair: ${result.error}`);
    const minutes = Math.round(config.JOIN_CODE_TTL_S / 60);
    out.write(
      [
        `Join code for node "${name}" (owner ${owner}), valid ${minutes} min, works once.`,
        "On that PC, with ROUTER_URL pointing at this router's /ws/node:",
        `  phonework host --join ${result.value.code}`,
        result.value.code,
        "",
      ].join("\n"),
    );
  } finally {
    db.close();
  }
}

/** The single admin; on a router without chat platforms, the terminal's user. */
function defaultOwner(specs: ReturnType<typeof adapterSpecs>): string | undefined {
  const admins = routerAdmins(specs);
  if (admins.length === 1) return admins[0];
  return specs.length > 0 ? undefined : TERMINAL_USER;
}
