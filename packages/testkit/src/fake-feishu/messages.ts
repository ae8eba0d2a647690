import { cardProblem, cardProblemMessage } from "./card-schema.ts";
import { FeishuCode, type FeishuError, feishuError, invalidParam, type RouteResult } from "./errors.ts";
import { newMessageId, stableId } from "./ids.ts";
import type { CardVersion, MessageContent, SentMessage, StoredMessage } from "./types.ts";

// The im/v1 message routes: create, reply (idempotent by `uuid` for an hour; refused for a recalled
// message), patch (shared cards only) and update (text/post only, at most 20 edits). Every card is
// checked as Feishu checks it (card-schema.ts) and each version of it kept (`cardVersions`). The
// store also learns user messages and p2p chats from the events the fake delivers, so replies to
// them resolve as in production.

const MSG_TYPES = new Set([
  "text",
  "post",
  "image",
  "file",
  "audio",
  "media",
  "sticker",
  "interactive",
  "share_chat",
  "share_user",
  "system",
]);
const RECEIVE_ID_TYPES = new Set(["open_id", "union_id", "user_id", "email", "chat_id"]);
const EDITABLE = new Set(["text", "post"]);
const MAX_EDITS = 20;
const UUID_WINDOW_MS = 60 * 60 * 1000;

const fail = (error: FeishuError): RouteResult => ({ error });
/** Why Feishu refuses this card, as its error; undefined when it takes it. */
export function cardError(card: unknown): FeishuError | undefined {
  const problem = cardProblem(card);
  return problem ? feishuError(400, FeishuCode.cardContentFailed, cardProblemMessage(problem)) : undefined;
}

const validation = (detail: string): RouteResult =>
  fail(feishuError(400, FeishuCode.fieldValidation, `field validation failed: ${detail}`));

function parseContent(content: unknown): MessageContent | undefined {
  if (typeof content !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(content);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as MessageContent)
      : undefined;
  } catch {
    return undefined;
  }
}

function isSharedCard(card: MessageContent): boolean {
  const config = card.config as { update_multi?: unknown } | undefined;
  // JSON 2.0 cards are always shared; template cards carry their config server-side.
  return config?.update_multi === true || card.schema === "2.0" || card.type === "template";
}

export class MessageStore {
  readonly sent: SentMessage[] = [];
  readonly patches: Array<{ message_id: string; content: unknown }> = [];
  readonly updates: Array<{ message_id: string; msg_type: string; content: unknown }> = [];
  readonly cardVersions: CardVersion[] = [];
  private readonly byId = new Map<string, StoredMessage>();
  private readonly byUuid = new Map<string, { messageId: string; expiresAt: number }>();
  private readonly p2pChats = new Map<string, string>();

  constructor(
    private readonly appId: string,
    private readonly tenantKey: string,
  ) {}

  get(messageId: string): StoredMessage | undefined {
    return this.byId.get(messageId);
  }

  /** Learns the user message (and p2p chat) carried by an im.message.receive_v1 event. */
  observeEvent(event: object): void {
    const { header, event: body } = event as {
      header?: { event_type?: string };
      event?: {
        sender?: { sender_id?: { open_id?: string } };
        message?: {
          message_id?: string;
          chat_id?: string;
          chat_type?: string;
          message_type?: string;
          content?: string;
        };
      };
    };
    const message = body?.message;
    if (header?.event_type !== "im.message.receive_v1" || !message?.message_id || !message.chat_id) return;
    const openId = body?.sender?.sender_id?.open_id;
    if (message.chat_type === "p2p" && openId) this.p2pChats.set(openId, message.chat_id);
    const now = String(Date.now());
    this.byId.set(message.message_id, {
      message_id: message.message_id,
      chat_id: message.chat_id,
      msg_type: message.message_type ?? "text",
      content: parseContent(message.content) ?? {},
      root_id: "",
      parent_id: "",
      sender: "user",
      edits: 0,
      create_time: now,
      update_time: now,
    });
  }

  create(query: Record<string, string>, body: unknown): RouteResult {
    const receiveIdType = query.receive_id_type;
    if (!receiveIdType || !RECEIVE_ID_TYPES.has(receiveIdType)) return validation("receive_id_type");
    const { receive_id } = (body ?? {}) as { receive_id?: unknown };
    if (typeof receive_id !== "string" || !receive_id) return validation("receive_id is required");
    return this.send(body, {
      receive_id,
      receive_id_type: receiveIdType,
      chat_id: this.chatFor(receiveIdType, receive_id),
    });
  }

  /** The sender withdrew the message (the fake's stand-in for a user recalling it in the app). */
  recall(messageId: string): void {
    const message = this.byId.get(messageId);
    if (!message) throw new Error(`fake-feishu: no message ${messageId} to recall`);
    message.recalled = true;
  }

  reply(parentId: string, body: unknown): RouteResult {
    const parent = this.byId.get(parentId);
    if (!parent) return fail(invalidParam(`message ${parentId} not found`));
    if (parent.recalled)
      return fail(feishuError(400, FeishuCode.messageRecalled, "The message was recalled."));
    const { reply_in_thread } = (body ?? {}) as { reply_in_thread?: unknown };
    return this.send(body, {
      receive_id: parent.chat_id,
      receive_id_type: "chat_id",
      chat_id: parent.chat_id,
      reply_to: parentId,
      root_id: parent.root_id || parent.message_id,
      ...(reply_in_thread === true ? { reply_in_thread: true } : {}),
    });
  }

  patch(messageId: string, body: unknown): RouteResult {
    const target = this.ownMessage(messageId);
    if ("error" in target) return target;
    if (target.msg_type !== "interactive") return fail(invalidParam("This message is NOT a card."));
    if (!isSharedCard(target.content)) {
      return fail(invalidParam("only shared cards (config.update_multi=true) can be updated"));
    }
    const content = parseContent((body as { content?: unknown } | undefined)?.content);
    if (!content) return fail(invalidParam("invalid card content"));
    const refused = cardError(content);
    if (refused) return fail(refused);
    this.patches.push({ message_id: messageId, content });
    this.cardVersions.push({ message_id: messageId, via: "patch", content });
    Object.assign(target, { content, update_time: String(Date.now()) });
    return { data: {} };
  }

  /** A callback's answer replaced the card (already checked by the caller). */
  replaceCard(messageId: string, content: MessageContent): void {
    const target = this.byId.get(messageId);
    if (target?.msg_type !== "interactive") return;
    this.cardVersions.push({ message_id: messageId, via: "callback", content });
    Object.assign(target, { content, update_time: String(Date.now()) });
  }

  update(messageId: string, body: unknown): RouteResult {
    const target = this.ownMessage(messageId);
    if ("error" in target) return target;
    const { msg_type, content: raw } = (body ?? {}) as { msg_type?: unknown; content?: unknown };
    if (typeof msg_type !== "string" || !EDITABLE.has(msg_type) || !EDITABLE.has(target.msg_type)) {
      return fail(invalidParam("only text and post messages can be edited; use patch for cards"));
    }
    if (target.edits >= MAX_EDITS) {
      return fail(
        feishuError(
          400,
          FeishuCode.editLimitReached,
          "The message has reached the number of times it can be edited.",
        ),
      );
    }
    const content = parseContent(raw);
    if (!content) return fail(invalidParam("invalid message content"));
    this.updates.push({ message_id: messageId, msg_type, content });
    Object.assign(target, { msg_type, content, edits: target.edits + 1, update_time: String(Date.now()) });
    return { data: this.view(target) };
  }

  private ownMessage(messageId: string): StoredMessage | { error: FeishuError } {
    const target = this.byId.get(messageId);
    if (!target) return { error: invalidParam(`message ${messageId} not found`) };
    if (target.sender !== "app") return { error: invalidParam("the bot can only edit its own messages") };
    return target;
  }

  private send(
    body: unknown,
    route: Pick<
      SentMessage,
      "receive_id" | "receive_id_type" | "chat_id" | "reply_to" | "reply_in_thread"
    > & {
      root_id?: string;
    },
  ): RouteResult {
    const {
      msg_type,
      content: raw,
      uuid,
    } = (body ?? {}) as { msg_type?: unknown; content?: unknown; uuid?: unknown };
    if (typeof msg_type !== "string" || !MSG_TYPES.has(msg_type)) return validation("msg_type");
    const content = parseContent(raw);
    if (!content) return fail(invalidParam("invalid message content"));
    const refused = msg_type === "interactive" ? cardError(content) : undefined;
    if (refused) return fail(refused);
    const now = Date.now();
    if (typeof uuid === "string" && uuid) {
      const seen = this.byUuid.get(uuid);
      const existing = seen && seen.expiresAt > now ? this.byId.get(seen.messageId) : undefined;
      if (existing) return { data: this.view(existing) };
    }
    const { root_id = "", ...sent } = route;
    const message: StoredMessage = {
      message_id: newMessageId(),
      chat_id: route.chat_id,
      msg_type,
      content,
      root_id,
      parent_id: route.reply_to ?? "",
      sender: "app",
      edits: 0,
      create_time: String(now),
      update_time: String(now),
    };
    this.byId.set(message.message_id, message);
    if (msg_type === "interactive")
      this.cardVersions.push({ message_id: message.message_id, via: "send", content });
    if (typeof uuid === "string" && uuid)
      this.byUuid.set(uuid, { messageId: message.message_id, expiresAt: now + UUID_WINDOW_MS });
    this.sent.push({
      message_id: message.message_id,
      msg_type,
      content,
      ...sent,
      ...(typeof uuid === "string" && uuid ? { uuid } : {}),
    });
    return { data: this.view(message) };
  }

  private chatFor(receiveIdType: string, receiveId: string): string {
    if (receiveIdType === "chat_id") return receiveId;
    if (receiveIdType === "open_id")
      return this.p2pChats.get(receiveId) ?? stableId("oc_", `p2p:${receiveId}`);
    return stableId("oc_", `${receiveIdType}:${receiveId}`);
  }

  /** The message object Feishu returns from create/reply/update. */
  private view(message: StoredMessage): object {
    return {
      message_id: message.message_id,
      root_id: message.root_id,
      parent_id: message.parent_id,
      thread_id: "",
      msg_type: message.msg_type,
      create_time: message.create_time,
      update_time: message.update_time,
      deleted: message.recalled === true,
      updated: message.edits > 0,
      chat_id: message.chat_id,
      sender: { id: this.appId, id_type: "app_id", sender_type: "app", tenant_key: this.tenantKey },
      body: { content: JSON.stringify(message.content) },
      mentions: [],
      upper_message_id: "",
    };
  }
}
