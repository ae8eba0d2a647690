import { pairingStepsText } from "../chat/user-messages.ts";
import type { NodeInfo } from "../registry/node-info.ts";

// /start: the first thing a Telegram user sends (and anyone may). It says what to do next: with
// no node, how one is paired (an admin pairs it; anyone else asks an admin); with nodes, what to try.

const WELCOME = "👋 Welcome to PhoneWork: this chat runs work on your own PCs (nodes).";

export function startText(userId: string, nodes: readonly NodeInfo[], isAdmin: boolean): string {
  if (nodes.length === 0)
    return `${WELCOME}\n\nNo node serves you yet.\n${pairingStepsText(userId, isAdmin)}`;
  const listed = nodes.map((n) => `${n.nodeId} (${n.status === "online" ? "online" : "offline"})`);
  return [
    WELCOME,
    "",
    `Your nodes: ${listed.join(", ")}.`,
    "Try:",
    "/help — what you can ask here and on your node",
    "/nodes — your nodes, and which one your messages go to",
    ...(isAdmin ? ["/pair <name> — pair another PC"] : []),
    "Or just write what you want done, for example: how full is the disk?",
  ].join("\n");
}
