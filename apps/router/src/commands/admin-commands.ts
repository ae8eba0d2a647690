import { lookupNode, type NodeInfo } from "../registry/node-info.ts";
import type { Asker, RouterCommandDeps } from "./command-context.ts";
import { formatStatus } from "./format-status.ts";

// Pairing and sharing, for admins only: /pair, /revoke, /forget, /share, /unshare, /status.

/** Every admin command, with its usage; the number of arguments it takes is read from the usage. */
const USAGE = {
  pair: "/pair <name>",
  revoke: "/revoke <node>",
  forget: "/forget <node>",
  share: "/share <node> <user>",
  unshare: "/unshare <node> <user>",
  status: "/status",
} as const;

export type AdminCommandName = keyof typeof USAGE;
export const ADMIN_COMMANDS = Object.keys(USAGE) as AdminCommandName[];
const arity = (name: AdminCommandName) => USAGE[name].split(" ").length - 1;

export function runAdminCommand(
  asker: Asker,
  name: AdminCommandName,
  args: string[],
  deps: RouterCommandDeps & { isAdmin: boolean },
): string {
  // A node's owner may pair it again (a new PC, a lost key); pairing a new name is for admins.
  const ownNode = name === "pair" && deps.pairing.ownerOf(args[0] ?? "") === asker.userId;
  if (!deps.isAdmin && !ownNode)
    return deps.admins.users.size === 0
      ? `🔒 /${name} is for admins, and none is set: set ADMINS on the router (your id: ${asker.userId}).`
      : `🔒 /${name} is for admins.`;
  if (args.length !== arity(name)) return `Usage: ${USAGE[name]}`;
  const [first = "", second = ""] = args;
  const all = deps.registry.list();
  const now = deps.clock.now();
  switch (name) {
    case "status":
      return formatStatus(all, now);
    case "pair": {
      const result = deps.pairing.pair(first, asker.userId, deps.isAdmin || ownNode);
      if (!result.ok) return `❌ ${result.error}`;
      const minutes = Math.round((result.value.expiresAt - now) / 60_000);
      return [
        `🔑 Join code for ${first} (valid ${minutes} min, works once):`,
        "",
        result.value.code,
        "",
        `On that PC: phonework host --join ${result.value.code}`,
        "(with ROUTER_URL pointing at this router's /ws/node).",
        ...(result.value.replacing
          ? [
              `Once it is used, the key ${first} has now is refused: that PC stops and says how to pair again.`,
            ]
          : []),
      ].join("\n");
    }
    default: {
      // Ids first; a display name only when exactly one node has it (lookupNode): an admin's
      // action must never land on a look-alike.
      const node = resolve(all, first);
      if (typeof node === "string") return node;
      if (name === "revoke") {
        const result = deps.pairing.revoke(node.nodeId);
        return result.ok
          ? `⛔ ${node.nodeId} revoked: its key is refused from now on.`
          : `❌ ${result.error}`;
      }
      if (name === "forget") {
        const result = deps.pairing.forget(node.nodeId);
        return result.ok ? `🗑️ ${node.nodeId} forgotten.` : `❌ ${result.error}`;
      }
      // Stored qualified, as SERVES_USERS is: a bare "u2" would match nobody and share nothing.
      const user = deps.qualifyUser?.(second) ?? { ok: true, id: second };
      if (name === "share" && !user.ok) return `❌ ${user.reason}`;
      // Unsharing an id the upgrade could not qualify (several adapters) removes it as typed.
      const userId = user.ok ? user.id : second;
      const result =
        name === "share"
          ? deps.pairing.share(node.nodeId, userId)
          : deps.pairing.unshare(node.nodeId, userId);
      if (!result.ok) return `❌ ${result.error}`;
      const users = [result.value.owner, ...result.value.sharedWith].join(", ");
      return `✅ ${node.nodeId} now serves: ${users}.`;
    }
  }
}

function resolve(nodes: NodeInfo[], name: string): NodeInfo | string {
  const found = lookupNode(nodes, name);
  if (found.kind === "found") return found.node;
  if (found.kind === "ambiguous")
    return `❓ "${name}" could be ${found.nodes.map((n) => n.nodeId).join(" or ")}; use the node id.`;
  return `❓ No node "${name}". Known: ${nodes.map((n) => n.nodeId).join(", ") || "none"}.`;
}
