import type { Clock } from "@phonework/runtime";
import { activeNodeSetText, nodeOfflineText, unknownNodeText } from "../chat/user-messages.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import type { RoutingStep } from "./routing-step.ts";

// "@work-server run the tests", "on work-server: run the tests", "@Home PC, status?" — the user
// named the machine, so no model is asked. A node id always wins over a display name: an admin
// gave the id at pairing, while a host picks its own display name (and one that begins another
// node's id or name is refused at register, display-name-rule.ts). A name that is no node of the user's ("@hom-pc" typed for "@home-pc"), or
// one that two nodes answer to, is answered with a question: a command typed for one machine must
// never run on another.

export type ExplicitTarget =
  /** `rest` is the message without the target prefix; `byName`: matched by display name, not id. */
  | { kind: "node"; node: NodeInfo; rest: string; byName?: true }
  | { kind: "unknown"; name: string; sameName: NodeInfo[] };

/** The routing reason of a node reached by its display name (its answer is tagged with its id). */
export const EXPLICIT_BY_NAME = "explicit-name";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Match {
  node: NodeInfo;
  rest: string;
  length: number;
}

function matchName(text: string, name: string): string | undefined {
  const n = escapeRegExp(name);
  // "@name" then a separator or the end; "on name:" needs the colon so plain prose is not caught.
  const match = new RegExp(`^(?:@${n}(?=$|[\\s:,，：])|on\\s+${n}\\s*[:：])[\\s:,，：]*`, "i").exec(text);
  return match ? text.slice(match[0].length).trim() : undefined;
}

/** The longest name wins: "@work" must not steal "@work-server". */
function longest(matches: Match[]): Match[] {
  const best = Math.max(0, ...matches.map((m) => m.length));
  return matches.filter((m) => m.length === best);
}

/** What every match below begins with: most messages name no node, and build no pattern. */
const NAMES_A_NODE = /^(?:@|on\s)/i;

export function findExplicitTarget(text: string, nodes: readonly NodeInfo[]): ExplicitTarget | undefined {
  const trimmed = text.trim();
  if (!NAMES_A_NODE.test(trimmed)) return undefined;
  const byId: Match[] = [];
  const byName: Match[] = [];
  for (const node of nodes) {
    const idRest = matchName(trimmed, node.nodeId);
    if (idRest !== undefined) byId.push({ node, rest: idRest, length: node.nodeId.length });
    const nameRest = node.displayName === node.nodeId ? undefined : matchName(trimmed, node.displayName);
    if (nameRest !== undefined) byName.push({ node, rest: nameRest, length: node.displayName.length });
  }
  const [id] = longest(byId);
  const names = longest(byName);
  if (id) return { kind: "node", node: id.node, rest: id.rest };
  if (names.length === 1 && names[0])
    return { kind: "node", node: names[0].node, rest: names[0].rest, byName: true };
  if (names.length > 1)
    return { kind: "unknown", name: names[0]?.node.displayName ?? "", sameName: names.map((m) => m.node) };
  const typed = /^@([^\s:,，：]+)/.exec(trimmed);
  return typed?.[1] ? { kind: "unknown", name: typed[1], sameName: [] } : undefined;
}

/** An explicitly named node gets the message (and becomes active); offline, the user is told so. */
export function explicitTargetStep(clock: Clock): RoutingStep {
  return ({ text, nodes }) => {
    const target = findExplicitTarget(text, nodes);
    if (!target) return undefined;
    if (target.kind === "unknown")
      return { kind: "reply", text: unknownNodeText(target.name, nodes, target.sameName) };
    const { node, rest } = target;
    if (node.status !== "online") return { kind: "reply", text: nodeOfflineText(node, clock.now()) };
    if (!rest) return { kind: "reply", text: activeNodeSetText(node), activeNodeId: node.nodeId };
    // A display name is the host's own choice: the answer will say which node it really was.
    const reason = target.byName ? EXPLICIT_BY_NAME : "explicit";
    return { kind: "forward", nodeId: node.nodeId, reason, text: rest };
  };
}
