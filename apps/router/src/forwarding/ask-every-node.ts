import { WireError } from "@phonework/protocol";
import type { Clock } from "@phonework/runtime";
import { acrossNodesButtons, acrossNodesText, type NodePart } from "../chat/across-nodes-text.ts";
import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress, IncomingMessage } from "../chat/chat-types.ts";
import { fromNode } from "../chat/user-messages.ts";
import type { RouterCommandDeps } from "../commands/command-context.ts";
import type { DeliveryLedger } from "../delivery/delivery-ledger.ts";
import type { NodeInfo } from "../registry/node-info.ts";
import { type ForwardRequestDeps, forwardRequest } from "./forward-request.ts";
import { ProgressMessage } from "./progress-message.ts";

// One view across nodes: "/tasks" (and /reminders, /plans, /sessions) alone, from a user with more
// than one node, is asked of every online node that serves them, each as a request of its own, and
// answered with one message: every node's answer under its tag, the ones that failed or did not
// answer in time named, and the offline ones said not asked. `@node /tasks` is routed as any
// message is, to that node alone. Each node's answer is acknowledged to its outbox once the merged
// message is shown; an answer that comes after the timeout is a late answer of its own, as always.

/** Commands about the user's own work on a node, which every node can answer about itself. */
const ACROSS_NODES = new Set(["tasks", "reminders", "plans", "sessions", "usage"]);

/**
 * The message is one of those commands alone ("/tasks", not "/plans 3f2a" nor "@home-pc /tasks"),
 * or /usage with its period ("/usage week": each node's totals, one under the other).
 */
export function isAcrossNodesCommand(text: string): boolean {
  const match = /^\/([a-z]+)(?:\s+(today|week|month))?$/i.exec(text.trim());
  const name = match?.[1]?.toLowerCase();
  if (match?.[2] && name !== "usage") return false;
  return name !== undefined && ACROSS_NODES.has(name);
}

export interface AskEveryNodeDeps extends ForwardRequestDeps {
  chat: ChatHub;
  userState: Pick<RouterCommandDeps["userState"], "resultMode">;
  clock: Clock;
  progressIntervalMs: number;
  deliveries: Pick<DeliveryLedger, "shown">;
}

/**
 * Sends the message to each of `nodes` that is online before it resolves; `answered` resolves once
 * the merged answer is shown. Revoked nodes are neither asked nor named.
 */
export async function askEveryNode(
  deps: AskEveryNodeDeps,
  message: IncomingMessage,
  to: ChatAddress,
  nodes: readonly NodeInfo[],
): Promise<{ answered: Promise<void> }> {
  const serving = nodes.filter((node) => !node.revoked);
  const online = serving.filter((node) => node.status === "online");
  const offline = serving.filter((node) => node.status !== "online");
  const progress = new ProgressMessage(deps.chat, to, deps.progressIntervalMs, () => deps.clock.now());
  const asked = await Promise.all(
    online.map(async (node) => ({
      nodeId: node.nodeId,
      ...(await forwardRequest(deps, message, { nodeId: node.nodeId, nodes, text: message.text }, (line) =>
        progress.add(fromNode(node.nodeId, line)),
      )),
    })),
  );
  deps.logger.info(
    { userId: message.userId, asked: asked.map((a) => a.nodeId), offline: offline.map((n) => n.nodeId) },
    "asking every node",
  );
  const answered = (async () => {
    const settled = await Promise.allSettled(asked.map((a) => a.reply));
    const parts: NodePart[] = [];
    const deliveries: Array<{ nodeId: string; deliveryId: string }> = [];
    settled.forEach((outcome, i) => {
      const { nodeId, about } = asked[i] as (typeof asked)[number];
      if (outcome.status === "fulfilled") {
        const { answer, deliveryId, alreadyShown } = outcome.value;
        if (alreadyShown) return; // shown as a late answer of its own, before this ask came again
        deliveries.push({ nodeId, deliveryId });
        parts.push(answer.ok ? { nodeId, ...answer } : { nodeId, ok: false, error: answer.error });
        return;
      }
      const error =
        outcome.reason instanceof WireError
          ? outcome.reason
          : new WireError("INTERNAL", String(outcome.reason), nodeId);
      deps.logger.warn({ ...about, code: error.code, message: error.message }, "forward failed");
      parts.push({ nodeId, ok: false, error });
    });
    const buttons = acrossNodesButtons(parts);
    const shown = await progress.conclude(
      {
        ok: parts.some((part) => part.ok),
        text: acrossNodesText(parts, offline, deps.clock.now()),
        ...(buttons.length > 0 ? { buttons } : {}),
      },
      deps.userState.resultMode(message.userId, message.chatId),
      { replyTo: message.messageId },
    );
    // Shown (or refused by the platform): each node's outbox gets its ack.
    for (const { nodeId, deliveryId } of deliveries) deps.deliveries.shown(nodeId, deliveryId, shown);
  })();
  return { answered };
}
