import type { ChannelMessage } from "../platform-adapter.ts";
import { attachmentsOf } from "./attachments.ts";

// An im.message.receive_v1 event, turned into a platform-neutral message — or the reason it is
// not one (incomplete, or sent by a bot). Images, files, audio and videos come as attachments; a
// message type the bot cannot read (a sticker…) becomes a message marked `unsupported`, so the
// shared layer can tell the sender.

export interface ReceiveEvent {
  event_id?: string;
  sender?: { sender_id?: { open_id?: string }; sender_type?: string };
  message?: {
    message_id?: string;
    chat_id?: string;
    chat_type?: string;
    message_type?: string;
    content?: string;
    mentions?: Array<{ key?: string; id?: { open_id?: string }; name?: string }>;
  };
}

export type ParsedEvent = { kind: "message"; message: ChannelMessage } | { kind: "ignore"; reason: string };

function postText(content: Record<string, unknown>): string {
  // Post content is either { title, content } or keyed by language: { zh_cn: { title, content } }.
  const body = (Array.isArray(content.content) ? content : Object.values(content)[0]) as
    | { title?: string; content?: Array<Array<{ tag?: string; text?: string; href?: string }>> }
    | undefined;
  const lines = (body?.content ?? []).map((paragraph) =>
    paragraph
      .map((node) =>
        node.tag === "a" && node.href ? `${node.text ?? ""} (${node.href})` : (node.text ?? ""),
      )
      .join(""),
  );
  return [body?.title, ...lines].filter((line) => line?.trim()).join("\n");
}

export function parseReceiveEvent(event: ReceiveEvent, botOpenId: string | undefined): ParsedEvent {
  const message = event.message;
  const userId = event.sender?.sender_id?.open_id;
  if (!message?.message_id || !message.chat_id || !userId)
    return { kind: "ignore", reason: "incomplete event" };
  if (event.sender?.sender_type === "app") return { kind: "ignore", reason: "sent by a bot" };
  const group = message.chat_type !== "p2p";
  const mentions = message.mentions ?? [];
  let content: Record<string, unknown> = {};
  try {
    content = JSON.parse(message.content ?? "{}") as Record<string, unknown>;
  } catch {}
  let text = "";
  if (message.message_type === "text") text = String(content.text ?? "");
  else if (message.message_type === "post") text = postText(content);
  // Drop the @mention placeholders ("@_user_1") so commands like "/nodes" still parse.
  for (const mention of mentions) if (mention.key) text = text.replaceAll(mention.key, "");
  const attachments = attachmentsOf(message.message_type ?? "", message.message_id, content);
  const readable =
    message.message_type === "text" || message.message_type === "post" || attachments.length > 0;
  return {
    kind: "message",
    message: {
      id: message.message_id,
      channel: { id: message.chat_id, type: group ? "group" : "private" },
      sender: { id: userId, isBot: false },
      text: text.trim(),
      attachments,
      // Without the bot's own open_id, any @mention counts (better answered than silent).
      isMention: !group || mentions.some((m) => (botOpenId ? m.id?.open_id === botOpenId : true)),
      ...(typeof event.event_id === "string" && event.event_id
        ? { dedupeKeys: [`e:${event.event_id}`] }
        : {}),
      ...(readable ? {} : { unsupported: message.message_type ?? "unknown" }),
    },
  };
}

/**
 * The keys under which the webhook guard remembers a delivery, so a replayed request (same event
 * id) or the same message under a new event id is dropped before it is even parsed.
 */
export function redeliveryKeys(eventId: unknown, messageId: unknown): string[] {
  const keys: string[] = [];
  if (typeof eventId === "string" && eventId) keys.push(`feishu:e:${eventId}`);
  if (typeof messageId === "string" && messageId) keys.push(`feishu:m:${messageId}`);
  return keys;
}
