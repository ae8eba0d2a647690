import { WireError } from "@phonework/protocol";
import { KeyedQueue } from "@phonework/runtime";
import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress, ChatReply, IncomingMessage } from "../chat/chat-types.ts";
import { bindToNode } from "../chat/node-buttons.ts";
import { fromNode, rpcErrorText } from "../chat/user-messages.ts";
import type { RouterCommandDeps } from "../commands/command-context.ts";
import { effectiveActiveNode, parseRouterCommand, runRouterCommand } from "../commands/router-commands.ts";
import type { NodeAnswer } from "../contracts/node-answer.ts";
import type { DeliveryLedger } from "../delivery/delivery-ledger.ts";
import { type NodeInfo, severalNodes } from "../registry/node-info.ts";
import { fallbackToActiveNode } from "../routing/basic-steps.ts";
import {
  onlineNodes,
  type RoutingDecision,
  type RoutingStep,
  routeMessage,
} from "../routing/routing-step.ts";
import { effectiveDetailsMode } from "../users/details-mode.ts";
import { askEveryNode, isAcrossNodesCommand } from "./ask-every-node.ts";
import { type ForwardRequestDeps, forwardRequest, type RequestFields } from "./forward-request.ts";
import { presentationMode, TurnPresentation } from "./turn-presentation.ts";

// Every incoming chat message ends here: router command, or routed to a node and answered.
// Nothing is dropped: each message gets a reply, a question, or a clear error — sent as a reply
// to it, where the platform has replies.
//
// Order: a user's messages are routed and forwarded one at a time, in the order they came, so a
// node receives them in that order (routing can take a while: the routing LLM). A node answers
// each user's messages one at a time, in that order, and its outbox sends the answers in order
// too; the router shows a node's answers as they arrive, so they appear in the order asked.
// Answers from different nodes, and the router's own answers, are not held back behind a slow
// node's: they may overtake, and the reply (or the terminal's quote) says which message they answer.

const ignore = (): undefined => undefined;

/** How long after a start a message waits for its user's node to reconnect: a host's longest backoff. */
const RECONNECT_GRACE_MS = 30_000;

export interface DispatcherDeps extends RouterCommandDeps, ForwardRequestDeps {
  /** `subscribe`: messages that come just after a start wait for their node to reconnect. */
  registry: RouterCommandDeps["registry"] & {
    subscribe(listener: (event: { type: string; node: NodeInfo }) => void): () => void;
  };
  /** How long after the start that wait may last (default 30 s). */
  reconnectGraceMs?: number;
  chat: ChatHub;
  routing: readonly RoutingStep[];
  progressIntervalMs: number;
  /** Speaks a delivered answer to users who turned /voice on (voice/VoiceOut); never throws. */
  voiceOut?: RouterCommandDeps["voiceOut"] & { speak(to: ChatAddress, answer: string): Promise<void> };
  /** Told once a node's answer is in the chat (or could not be put there): the node's outbox gets its ack. */
  deliveries: Pick<DeliveryLedger, "shown">;
}

/** The dispatcher's timings from the config. */
export function dispatcherSettings(config: {
  REQUEST_TIMEOUT_S: number;
  PROGRESS_INTERVAL_S: number;
}): Pick<DispatcherDeps, "requestTimeoutMs" | "progressIntervalMs"> {
  return {
    requestTimeoutMs: config.REQUEST_TIMEOUT_S * 1000,
    progressIntervalMs: config.PROGRESS_INTERVAL_S * 1000,
  };
}

export class MessageDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  /** Each user's messages, routed and forwarded one at a time. */
  private readonly intake = new KeyedQueue();
  private readonly startedAt: number;
  /** The clock for every turn's progress (made once: a closure per message showed in the profile). */
  private readonly now: () => number;
  private readonly fallback: ReturnType<typeof fallbackToActiveNode>;

  constructor(private readonly deps: DispatcherDeps) {
    this.startedAt = deps.clock.now();
    this.now = () => deps.clock.now();
    this.fallback = fallbackToActiveNode(deps.clock);
  }

  /**
   * Handles a message in the background; `drain()` waits for all of them. Resolves (never
   * rejects) once the message is accepted: answered by the router, or sent on to a node.
   */
  handle(message: IncomingMessage): Promise<void> {
    const accepted = this.intake.run(`${message.platform}/${message.userId}`, () => this.accept(message));
    // One settle handler both logs a failure and leaves the in-flight set (a `catch` then a
    // `finally` made four promises more per message).
    const work: Promise<void> = accepted
      .then((taken) => taken.answered)
      .then(
        () => void this.inFlight.delete(work),
        (error: unknown) => {
          this.inFlight.delete(work);
          this.deps.logger.error({ err: error, userId: message.userId }, "message handling failed");
        },
      );
    this.inFlight.add(work);
    return accepted.then(ignore, ignore);
  }

  get pending(): number {
    return this.inFlight.size;
  }

  /** Resolves once every message received so far has been answered. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Answers the message, or routes and forwards it; resolves as soon as the user's next message
   * may be taken, with the answer still to come (wrapped, so the queue does not wait for it).
   */
  private async accept(message: IncomingMessage): Promise<{ answered: Promise<void> }> {
    const { deps } = this;
    const to: ChatAddress = { platform: message.platform, userId: message.userId, chatId: message.chatId };
    // A companion (the web console) is a chat pushes may name, not where the user's notices move to.
    const latest = deps.chat.adapter(message.platform)?.companion !== true;
    deps.userState.rememberChat(
      message.userId,
      { platform: message.platform, chat_id: message.chatId },
      { latest },
    );

    const command = parseRouterCommand(message.text);
    if (command) {
      const asker = {
        userId: message.userId,
        platform: message.platform,
        chatId: message.chatId,
        chatType: message.chatType,
        threads: deps.chat.adapter(message.platform)?.capabilities.threads ?? "none",
      };
      return { answered: this.answer(message, to, runRouterCommand(asker, command, deps)).then(ignore) };
    }

    const returning = this.nodeReturning(message.userId);
    if (returning) await returning;
    const nodes = deps.registry.nodesForUser(message.userId);
    // "/tasks" from a user with several nodes: every online one is asked, and answers in one message.
    if (isAcrossNodesCommand(message.text) && severalNodes(nodes) && onlineNodes(nodes).length > 0)
      return askEveryNode(deps, message, to, nodes);
    const activeNodeId = effectiveActiveNode(message.userId, deps);
    const decision = await routeMessage(
      { userId: message.userId, text: message.text, nodes, activeNodeId },
      deps.routing,
      this.fallback,
    );
    if (decision.kind === "reply") {
      if (decision.activeNodeId) deps.userState.setActiveNode(message.userId, decision.activeNodeId);
      return { answered: this.answer(message, to, { text: decision.text }).then(ignore) };
    }
    deps.userState.setActiveNode(message.userId, decision.nodeId);
    return this.forwardTo(message, to, decision, nodes);
  }

  /** The router's own reply; not before the message is stored (a reply never outruns its message). */
  private async answer(message: IncomingMessage, to: ChatAddress, reply: ChatReply) {
    await message.stored;
    return this.deps.chat.sendText(to, reply.text, {
      replyTo: message.messageId,
      ...(reply.buttons ? { buttons: reply.buttons } : {}),
    });
  }

  /**
   * Forwards the message to the node routing chose: resolves once it is sent (the user's next
   * message cannot overtake it), `answered` once its answer is shown.
   */
  private async forwardTo(
    message: IncomingMessage,
    to: ChatAddress,
    decision: Extract<RoutingDecision, { kind: "forward" }>,
    nodes: readonly NodeInfo[],
  ): Promise<{ answered: Promise<void> }> {
    const { nodeId } = decision;
    const progress = this.presentation(message, to);
    const { about, reply } = await forwardRequest(
      this.deps,
      message,
      { nodeId, nodes, text: decision.text ?? message.text, details: progress.wantsDetails },
      (line, kind) => progress.add(line, kind),
    );
    // The router's logger with the request's ids as fields: a child logger per message (with its
    // redaction set up again) was a measurable share of the hot path.
    this.deps.logger.info({ ...about, reason: decision.reason }, "forwarding message");
    return { answered: this.awaitAnswer(message, progress, about, reply, nodes) };
  }

  /** The node's answer (or its failure), shown; then acknowledged to the node's outbox. */
  private async awaitAnswer(
    message: IncomingMessage,
    progress: TurnPresentation,
    about: RequestFields,
    reply: Promise<NodeAnswer>,
    nodes: readonly NodeInfo[],
  ): Promise<void> {
    const { deps } = this;
    const { nodeId } = about;
    // With more than one node, every answer says (by id) which node it came from.
    const several = severalNodes(nodes);
    try {
      const { answer: result, deliveryId, alreadyShown } = await reply;
      if (alreadyShown) {
        deps.logger.info(about, "answer shown before, as a late answer; nothing more to show");
        return progress.end();
      }
      let text: string;
      if (result.ok) text = several ? fromNode(nodeId, result.text) : result.text;
      else {
        this.warn(
          about,
          { code: result.error.code, message: result.error.message },
          "node answered with a failure",
        );
        text = rpcErrorText(result.error, nodeId);
      }
      const shown = await progress.conclude(
        { ok: result.ok, text, ...(result.buttons ? { buttons: bindToNode(nodeId, result.buttons) } : {}) },
        deps.userState.resultMode(message.userId, message.chatId),
        { replyTo: message.messageId },
      );
      // Shown (or refused by the platform): the ledger acknowledges it to the node's outbox.
      deps.deliveries.shown(nodeId, deliveryId, shown);
      // Then, as a best-effort extra outside the ledger, the answer spoken (/voice on).
      if (result.ok && shown)
        await deps.voiceOut?.speak(
          { platform: message.platform, userId: message.userId, chatId: message.chatId },
          result.text,
        );
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      this.warn(about, { code: error.code, message: error.message }, "forward failed");
      await progress.conclude({ ok: false, text: rpcErrorText(error, nodeId) }, "send", {
        replyTo: message.messageId,
      });
    }
  }

  private warn(about: RequestFields, fields: object, line: string): void {
    this.deps.logger.warn({ ...about, ...fields }, line);
  }

  /** How this chat shows the turn: its /details choice, as far as its platform allows. */
  private presentation(message: IncomingMessage, to: ChatAddress): TurnPresentation {
    const { deps } = this;
    const capabilities = deps.chat.adapter(message.platform)?.capabilities;
    const platform = { threads: capabilities?.threads ?? "none", canEdit: capabilities?.canEdit ?? false };
    const chosen = effectiveDetailsMode(
      deps.userState.detailsMode(message.userId, message.chatId),
      platform.threads,
    );
    return new TurnPresentation(deps.chat, to, {
      mode: presentationMode(chosen, platform),
      intervalMs: deps.progressIntervalMs,
      now: this.now,
    });
  }

  /**
   * Just after a (re)start hosts are still reconnecting, and messages stored or sent while the
   * router was down arrive at once: one for the node the user was talking to, not back since the
   * start, waits for it (bounded by the grace) rather than being told that node is offline.
   */
  private nodeReturning(userId: string): Promise<void> | undefined {
    const { deps } = this;
    const nodeId = deps.userState.activeNode(userId);
    const left = this.startedAt + (deps.reconnectGraceMs ?? RECONNECT_GRACE_MS) - deps.clock.now();
    // Undefined, not a resolved promise, when there is nothing to wait for: no await per message.
    if (!nodeId || left <= 0) return undefined;
    const node = deps.registry.get(nodeId);
    // Online, revoked, or seen going offline since the start: not on its way back.
    if (node && (node.status === "online" || node.revoked || node.lastSeen >= this.startedAt))
      return undefined;
    deps.logger.info({ userId, nodeId }, "waiting for the node to reconnect after the start");
    return new Promise<void>((resolve) => {
      const unsubscribe = deps.registry.subscribe((event) => {
        if (event.type === "online" && event.node.nodeId === nodeId) done();
      });
      const timer = setTimeout(() => done(), left);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
    });
  }
}
