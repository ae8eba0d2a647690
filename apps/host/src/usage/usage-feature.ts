import type { HostFeature } from "../contracts/host-feature.ts";
import type { NodeOwners } from "../link/node-owners.ts";
import type { Usage } from "./open-usage.ts";
import { usageCommand } from "./usage-command.ts";

// /usage, and the retention sweep: rows older than USAGE_RETENTION_DAYS go at start and every
// six hours after.

const SWEEP_MS = 6 * 3600 * 1000;

export function createUsageFeature(usage: Usage, owners: Pick<NodeOwners, "isOwner">): HostFeature {
  let sweep: NodeJS.Timeout | undefined;
  return {
    name: "usage",
    commands: [usageCommand(usage, owners)],
    start() {
      usage.prune();
      sweep = setInterval(() => usage.prune(), SWEEP_MS);
      sweep.unref();
    },
    stop() {
      clearInterval(sweep);
    },
  };
}
