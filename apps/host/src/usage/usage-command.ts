import type { HostCommand } from "../contracts/host-command.ts";
import type { NodeOwners } from "../link/node-owners.ts";
import type { Usage } from "./open-usage.ts";
import { PERIODS, type Period, usageReport } from "./usage-report.ts";

// /usage [today|week|month] [user]: the asking user's model usage on this node; another user's
// only for an owner of the node (the router's admins are owners). /usage lift <user>: an owner
// lifts that user's daily limits here until this time tomorrow. `@node` is the router's: it says
// which node answers, so it is ignored here.

const USAGE = "Usage: /usage [today|week|month] [user id] · /usage lift <user id>";
const DAY_MS = 24 * 3600 * 1000;

export function usageCommand(usage: Usage, owners: Pick<NodeOwners, "isOwner">): HostCommand {
  const node = usage.config.NODE_ID;
  return {
    name: "usage",
    usage: "/usage [today|week|month]",
    description:
      "tokens and cost of your model calls here: per kind, project and model; owners: /usage lift <user>",
    // Answers at once, also while a turn runs and after a limit refused one.
    immediate: true,
    async run(args, request) {
      const words = args.split(/\s+/).filter((word) => word && !word.startsWith("@"));
      const asker = request.user_id;
      if (words[0]?.toLowerCase() === "lift") {
        const user = words[1];
        if (!user || words.length > 2) return USAGE;
        if (!owners.isOwner(asker)) return `Only an owner of ${node} may lift a limit.`;
        const until = usage.now() + DAY_MS;
        usage.store.lift(user, until, asker);
        return `✅ The daily limits of ${user} on ${node} are lifted until ${new Date(until).toISOString().slice(0, 16).replace("T", " ")} UTC.`;
      }
      let period: Period = "today";
      let user = asker;
      for (const word of words) {
        const lower = word.toLowerCase();
        if (lower in PERIODS) period = lower as Period;
        else if (user === asker && word !== asker) user = word;
        else return USAGE;
      }
      if (user !== asker && !owners.isOwner(asker))
        return `Only an owner of ${node} may see another user's usage.`;
      return usageReport(usage, user, period);
    },
  };
}
