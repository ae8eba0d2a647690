import type { ChatReply } from "../chat/chat-types.ts";
import { activeNodeSetText, resultModeText, unknownNodeText } from "../chat/user-messages.ts";
import { lookupNode, type NodeInfo } from "../registry/node-info.ts";
import { ADMIN_COMMANDS, type AdminCommandName, runAdminCommand } from "./admin-commands.ts";
import type { Asker, RouterCommandDeps } from "./command-context.ts";
import { detailsCommand } from "./details-command.ts";
import { formatNodeList } from "./format-node-list.ts";
import { startText } from "./start-text.ts";
import { voiceCommand } from "./voice-command.ts";

// Commands the router answers itself, without asking any node.

export type RouterCommand =
  | { name: "nodes" }
  | { name: "node"; arg: string }
  | { name: "help" }
  | { name: "start" }
  | { name: "result"; arg: string }
  | { name: "details"; arg: string }
  | { name: "voice"; arg: string }
  | { name: "console"; arg: string }
  | { name: AdminCommandName; args: string[] };

const COMMAND = new RegExp(
  String.raw`^/(nodes|node|help|start|result|details|voice|console|${ADMIN_COMMANDS.join("|")})(?:\s+(.*))?$`,
  "is",
);

export function parseRouterCommand(text: string): RouterCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]?.toLowerCase() ?? "";
  const arg = (match[2] ?? "").trim();
  if (name === "nodes") return { name: "nodes" };
  if (name === "help") return { name: "help" };
  if (name === "start") return { name: "start" };
  if (name === "node") return { name: "node", arg: unquote(arg) };
  if (name === "result") return { name: "result", arg: arg.toLowerCase() };
  if (name === "details") return { name: "details", arg: arg.toLowerCase() };
  if (name === "voice") return { name: "voice", arg: arg.toLowerCase() };
  if (name === "console") return { name: "console", arg };
  const admin = ADMIN_COMMANDS.find((command) => command === name);
  return admin ? { name: admin, args: arg ? arg.split(/\s+/).map(unquote) : [] } : undefined;
}

const unquote = (text: string) => text.replace(/^["']|["']$/g, "");

export const ROUTER_HELP = [
  "PhoneWork commands:",
  "/nodes — list your nodes (→ marks the active one)",
  "/node <name> — switch your active node (/node alone: pick one)",
  "/result replace|send — show a node's answer in place of its progress message, or after it",
  "/details thread|inline|off — a turn's tool calls, results and usage: under its message, in it, or not at all",
  "/voice on|off — short answers also as speech (a voice note where the chat has them)",
  "/console — a one-time link to the web console (/console logout-all signs out every browser)",
  "/help — this help",
  "@<name> <message> — send to that node (it becomes active)",
  "",
  "Anything else goes to your active node, or where your message clearly belongs.",
].join("\n");

export const ADMIN_HELP = [
  "Admin:",
  "/pair <name> — a one-time join code for a new host (phonework host --join <code>)",
  "/revoke <node> — refuse the node's key from now on (disconnects it)",
  "/forget <node> — remove an offline node from /nodes",
  "/share <node> <user> · /unshare <node> <user> — who else a node serves",
  "/status — every node, its owner, users and sessions",
].join("\n");

/** The node a user's messages go to: their explicit choice, else their only online node. */
export function effectiveActiveNode(userId: string, deps: Pick<RouterCommandDeps, "registry" | "userState">) {
  const chosen = deps.userState.activeNode(userId);
  if (chosen) return chosen;
  const online = deps.registry.nodesForUser(userId).filter((n) => n.status === "online");
  return online.length === 1 ? online[0]?.nodeId : undefined;
}

export function runRouterCommand(asker: Asker, command: RouterCommand, deps: RouterCommandDeps): ChatReply {
  const { userId } = asker;
  const nodes = deps.registry.nodesForUser(userId);
  const isAdmin = deps.admins.isAdmin(userId, asker.platform);
  switch (command.name) {
    case "help":
      return { text: helpText(userId, nodes, deps) + (isAdmin ? `\n\n${ADMIN_HELP}` : "") };
    case "start":
      return { text: startText(userId, nodes, isAdmin) };
    case "nodes":
      return {
        text: formatNodeList(nodes, effectiveActiveNode(userId, deps), deps.clock.now(), userId, isAdmin),
      };
    case "node":
      return switchNode(userId, command.arg, nodes, deps);
    case "result":
      return { text: setResultMode(asker, command.arg, deps) };
    case "details":
      return detailsCommand(asker, command.arg, deps.userState);
    case "voice":
      return voiceCommand(asker, command.arg, deps.userState, deps.voiceOut);
    case "console":
      return (
        deps.console?.run(userId, command.arg, asker.chatType ?? "private") ?? {
          text: "The web console is off on this router (CONSOLE=off).",
        }
      );
    default:
      return { text: runAdminCommand(asker, command.name, command.args, { ...deps, isAdmin }) };
  }
}

function setResultMode(asker: Asker, arg: string, deps: RouterCommandDeps): string {
  if (arg === "replace" || arg === "send") {
    deps.userState.setResultMode(asker.userId, asker.chatId, arg);
    return resultModeText(arg, true);
  }
  if (arg) return "Usage: /result replace|send";
  return resultModeText(deps.userState.resultMode(asker.userId, asker.chatId), false);
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

/** The user's nodes as buttons, one per row (a press is `/node <id>`). */
const nodeButtons = (nodes: NodeInfo[], active: string | undefined) =>
  nodes.map((node) => [
    {
      label: `${node.nodeId === active ? "→ " : ""}${node.nodeId}${node.status === "online" ? "" : " (offline)"}`,
      command: `/node ${node.nodeId}`,
    },
  ]);

function switchNode(userId: string, name: string, nodes: NodeInfo[], deps: RouterCommandDeps): ChatReply {
  if (!name) {
    const active = effectiveActiveNode(userId, deps);
    const text = active
      ? `Active node: ${active}. Use /node <name> to switch.`
      : "No active node. Use /node <name> to pick one.";
    return nodes.length > 0 ? { text, buttons: nodeButtons(nodes, active) } : { text };
  }
  const found = lookupNode(nodes, name);
  if (found.kind !== "found")
    return { text: unknownNodeText(name, nodes, found.kind === "ambiguous" ? found.nodes : []) };
  const { node } = found;
  deps.userState.setActiveNode(userId, node.nodeId);
  const note =
    node.status === "online" ? "" : " It is offline right now; messages will fail until it reconnects.";
  return { text: `${activeNodeSetText(node)}${note}` };
}
