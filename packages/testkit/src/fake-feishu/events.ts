import { hex, newEventId, newMessageId, stableId } from "./ids.ts";

// Builders for what Feishu pushes (schema 2.0). The same object goes over the long connection
// (pushEvent) or to a request URL (postWebhook). Without `appId` the fake fills in its own.

export const FAKE_TENANT_KEY = "2ed263bf32cf1651";
export const DEFAULT_VERIFICATION_TOKEN = "fake-verification-token";

export type PostElement = { tag: string; text?: string; href?: string; user_id?: string; image_key?: string };

export interface MessageEventInput {
  openId: string;
  chatId: string;
  chatType: "p2p" | "group";
  /** msg_type text; @mentions appear as their keys ("@_user_1") in the text. */
  text?: string;
  /** msg_type post (as received: no locale wrapper). */
  post?: { title?: string; content: PostElement[][] };
  /** Another msg_type (image, file, sticker, audio, media…), with plausible content. */
  messageType?: string;
  /** The key of a file the fake serves (userImage / userFile): image_key of an image, file_key otherwise. */
  resourceKey?: string;
  /** file_name of a file or media message (default "file.bin" / "video.mp4"). */
  fileName?: string;
  mentions?: Array<{ key: string; openId: string; name: string }>;
  eventId?: string;
  messageId?: string;
  /** Quote-reply / thread context of the user's message. */
  rootId?: string;
  parentId?: string;
  token?: string;
  appId?: string;
  createTime?: number;
}

function contentFor(input: MessageEventInput, messageType: string): object {
  if (messageType === "text") return { text: input.text ?? "" };
  if (messageType === "post") return { title: input.post?.title ?? "", content: input.post?.content ?? [] };
  const fileKey = input.resourceKey ?? `file_v3_00${hex(4)}_${hex(16)}g`;
  const imageKey = input.resourceKey ?? `img_v3_02${hex(4)}_${hex(16)}g`;
  switch (messageType) {
    case "image":
      return { image_key: imageKey };
    case "file":
      return { file_key: fileKey, file_name: input.fileName ?? "file.bin" };
    case "audio":
      return { file_key: fileKey, duration: 2000 };
    case "media":
      return {
        file_key: fileKey,
        image_key: `img_v3_02${hex(4)}_${hex(16)}g`,
        file_name: input.fileName ?? "video.mp4",
        duration: 2000,
      };
    case "sticker":
      return { file_key: fileKey };
    default:
      return {};
  }
}

const userIds = (openId: string) => ({
  union_id: stableId("on_", openId),
  user_id: stableId("", openId).slice(0, 8),
  open_id: openId,
});

/** The schema 2.0 header every event and callback carries. */
function eventHeader(
  eventType: string,
  createTime: string,
  input: { eventId?: string | undefined; token?: string | undefined; appId?: string | undefined },
) {
  return {
    event_id: input.eventId ?? newEventId(),
    token: input.token ?? DEFAULT_VERIFICATION_TOKEN,
    create_time: createTime,
    event_type: eventType,
    tenant_key: FAKE_TENANT_KEY,
    ...(input.appId ? { app_id: input.appId } : {}),
  };
}

export function messageEvent(input: MessageEventInput): object {
  const messageType = input.messageType ?? (input.post ? "post" : "text");
  const createTime = String(input.createTime ?? Date.now());
  return {
    schema: "2.0",
    header: eventHeader("im.message.receive_v1", createTime, input),
    event: {
      sender: { sender_id: userIds(input.openId), sender_type: "user", tenant_key: FAKE_TENANT_KEY },
      message: {
        message_id: input.messageId ?? newMessageId(),
        root_id: input.rootId ?? "",
        parent_id: input.parentId ?? "",
        create_time: createTime,
        update_time: createTime,
        chat_id: input.chatId,
        thread_id: "",
        chat_type: input.chatType,
        message_type: messageType,
        content: JSON.stringify(contentFor(input, messageType)),
        // Feishu leaves `mentions` out entirely when nobody is mentioned.
        ...(input.mentions?.length
          ? {
              mentions: input.mentions.map((mention) => ({
                key: mention.key,
                id: userIds(mention.openId),
                name: mention.name,
                tenant_key: FAKE_TENANT_KEY,
              })),
            }
          : {}),
        user_agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Lark/7.30.0",
      },
    },
  };
}

/** The request-URL check Feishu sends when the URL is saved in the developer console. */
export function urlVerificationEvent(input: { challenge: string; token: string }): object {
  return { challenge: input.challenge, token: input.token, type: "url_verification" };
}

/** Fills header.app_id when an event builder left it out, as a real push always carries it. */
export function withAppId(event: object, appId: string): object {
  const header = (event as { header?: Record<string, unknown> }).header;
  if (!header || header.app_id) return event;
  return { ...event, header: { ...header, app_id: appId } };
}

export interface CardActionInput {
  /** Who pressed. */
  openId: string;
  /** The card's message and chat. */
  messageId: string;
  chatId: string;
  /** The pressed button's callback value, as the card carries it. */
  value: unknown;
  /** The element pressed (default "button"). */
  tag?: string;
  eventId?: string;
  token?: string;
  appId?: string;
  createTime?: number;
}

/** A card.action.trigger callback (schema 2.0), as Feishu sends it when a card's button is pressed. */
export function cardActionEvent(input: CardActionInput): object {
  return {
    schema: "2.0",
    header: eventHeader("card.action.trigger", String(input.createTime ?? Date.now()), input),
    event: {
      operator: { tenant_key: FAKE_TENANT_KEY, ...userIds(input.openId) },
      // The delayed-update token of this press (valid 30 minutes, two updates).
      token: `c-${hex(20)}`,
      action: { value: input.value, tag: input.tag ?? "button" },
      host: "im_message",
      context: { open_message_id: input.messageId, open_chat_id: input.chatId },
    },
  };
}
