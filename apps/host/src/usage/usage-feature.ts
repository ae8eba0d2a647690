import type { OverviewUsage } from "@phonework/protocol";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { NodeOwners } from "../link/node-owners.ts";
import type { Usage } from "./open-usage.ts";
import { usageCommand } from "./usage-command.ts";
import { usageOverview } from "./usage-overview.ts";

// /usage, and the retention sweep: rows older than USAGE_RETENTION_DAYS go at start and every
// six hours after.

const SWEEP_MS = 6 * 3600 * 1000;

export interface UsageFeature extends HostFeature {
  /** The console's view of a user's usage here. */
  overview(userId: string): OverviewUsage;
}

export function createUsageFeature(usage: Usage, owners: Pick<NodeOwners, "isOwner">): UsageFeature {
  let sweep: NodeJS.Timeout | undefined;
  return {
    name: "usage",
    commands: [usageCommand(usage, owners)],
    overview: (userId) => usageOverview(usage, userId),
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
