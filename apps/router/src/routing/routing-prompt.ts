import type { SessionSummary } from "@phonework/protocol";
import { formatAgo, formatDuration } from "@phonework/runtime";
import type { NodeInfo } from "../registry/node-info.ts";
import type { RoutingContext } from "./routing-step.ts";

// What the routing LLM is shown: the user's nodes with status, capabilities, sessions and the
// active marker. One system message, the user's text, no history.

export const ROUTE_TO = "route_to";
export const ASK_USER = "ask_user";

export const ROUTING_TOOLS = [
  {
    type: "function" as const,
    function: {
      name: ROUTE_TO,
      description: "Forward the user's message to one of their nodes.",
      parameters: {
        type: "object",
        properties: { node_id: { type: "string", description: "The node's id, exactly as listed." } },
        required: ["node_id"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function" as const,
    function: {
      name: ASK_USER,
      description: "Ask the user which node they mean, when the message could fit several equally.",
      parameters: {
        type: "object",
        properties: { question: { type: "string", description: "One short question naming the choices." } },
        required: ["question"],
        additionalProperties: false,
      },
    },
  },
];

const RULES = [
  "Rules:",
  "- If the message continues or names a coding session or its project, route to the node owning it.",
  "- If the message names a machine, route there.",
  "- If nothing in the message points to another node, route to the ACTIVE node.",
  "- If there is no active node and the message could fit several nodes equally, ask the user.",
  "- Do not route to an offline node unless the message names it.",
  `Call exactly one tool: ${ROUTE_TO} or ${ASK_USER}.`,
].join("\n");

function describeSession(session: SessionSummary): string {
  const state = session.busy ? "busy" : "idle";
  const current = session.active ? ", the user's active session" : "";
  return `#${session.id} ${session.agent} in ${session.project || "(no project)"} (${state}${current})`;
}

function describeNode(node: NodeInfo, ctx: RoutingContext, now: number): string {
  const name = node.displayName !== node.nodeId ? ` "${node.displayName}"` : "";
  const active = node.nodeId === ctx.activeNodeId ? " [ACTIVE]" : "";
  const status =
    node.status === "online"
      ? `online for ${formatDuration(now - node.connectedAt)}`
      : `offline, last seen ${formatAgo(now - node.lastSeen)}`;
  // Only this user's sessions: a node may serve several people.
  const sessions = node.sessions.filter((s) => s.user_id === undefined || s.user_id === ctx.userId);
  const sessionText = sessions.length > 0 ? sessions.map(describeSession).join("; ") : "none";
  const capabilities = node.capabilities.join(", ") || "none";
  return `- ${node.nodeId}${name}${active}: ${status}; capabilities: ${capabilities}; sessions: ${sessionText}`;
}

export function routingPrompt(ctx: RoutingContext, now: number): string {
  return [
    "You are PhoneWork's routing assistant. A user sent a chat message; choose which of their machines (nodes) handles it.",
    "",
    "The user's nodes:",
    ...ctx.nodes.map((node) => describeNode(node, ctx, now)),
    "",
    RULES,
  ].join("\n");
}
