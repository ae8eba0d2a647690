import type { Clock } from "@phonework/runtime";
import { activeNodeSetText } from "../chat/user-messages.ts";
import { matchesName, type NodeInfo } from "../registry/node-info.ts";
import type { NodeDirectory } from "../registry/node-registry.ts";
import type { UserStateStore } from "../state/user-state-store.ts";
import { formatNodeList } from "./format-node-list.ts";

// Commands the router answers itself, without asking any node.

export type RouterCommand = { name: "nodes" } | { name: "node"; arg: string } | { name: "help" };

export function parseRouterCommand(text: string): RouterCommand | undefined {
  const match = /^\/(nodes|node|help)(?:\s+(.*))?$/is.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]?.toLowerCase();
  const arg = (match[2] ?? "").trim();
  if (name === "nodes") return { name: "nodes" };
  if (name === "help") return { name: "help" };
  return { name: "node", arg: arg.replace(/^["']|["']$/g, "") };
}

export const ROUTER_HELP = [
  "PhoneWork commands:",
  "/nodes — list your nodes (→ marks the active one)",
  "/node <name> — switch your active node",
  "/help — this help",
  "@<name> <message> — send to that node (it becomes active)",
  "",
  "Anything else goes to your active node, or where your message clearly belongs.",
].join("\n");

export interface RouterCommandDeps {
  registry: NodeDirectory;
  userState: UserStateStore;
  clock: Clock;
}

/** The node a user's messages go to: their explicit choice, else their only online node. */
export function effectiveActiveNode(userId: string, deps: RouterCommandDeps): string | undefined {
  const chosen = deps.userState.activeNode(userId);
  if (chosen) return chosen;
  const online = deps.registry.nodesForUser(userId).filter((n) => n.status === "online");
  return online.length === 1 ? online[0]?.nodeId : undefined;
}

export function runRouterCommand(userId: string, command: RouterCommand, deps: RouterCommandDeps): string {
  const nodes = deps.registry.nodesForUser(userId);
  switch (command.name) {
    case "help":
      return helpText(userId, nodes, deps);
    case "nodes":
      return formatNodeList(nodes, effectiveActiveNode(userId, deps), deps.clock.now(), userId);
    case "node":
      return switchNode(userId, command.arg, nodes, deps);
  }
}

/** Router commands, then the commands of the node the user's messages go to. */
function helpText(userId: string, nodes: NodeInfo[], deps: RouterCommandDeps): string {
  const active = effectiveActiveNode(userId, deps);
  const node = nodes.find((n) => n.nodeId === active) ?? (nodes.length === 1 ? nodes[0] : undefined);
  if (!node || node.commands.length === 0) return ROUTER_HELP;
  const width = Math.max(...node.commands.map((c) => c.usage.length));
  const lines = node.commands.map((c) => `${c.usage.padEnd(width)} — ${c.description}`);
  const tools = node.tools.length > 0 ? `\nAssistant tools: ${node.tools.join(", ")}` : "";
  return `${ROUTER_HELP}\n\nOn ${node.nodeId}:\n${lines.join("\n")}${tools}`;
}

function switchNode(userId: string, name: string, nodes: NodeInfo[], deps: RouterCommandDeps): string {
  if (!name) {
    const active = effectiveActiveNode(userId, deps);
    return active
      ? `Active node: ${active}. Use /node <name> to switch.`
      : "No active node. Use /node <name> to pick one.";
  }
  const node = nodes.find((n) => matchesName(n, name));
  if (!node) {
    const known = nodes.map((n) => n.nodeId).join(", ") || "none";
    return `❓ No node named "${name}". Your nodes: ${known}.`;
  }
  deps.userState.setActiveNode(userId, node.nodeId);
  const note =
    node.status === "online" ? "" : " It is offline right now; messages will fail until it reconnects.";
  return `${activeNodeSetText(node)}${note}`;
}
