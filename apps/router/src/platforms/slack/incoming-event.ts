import type { AttachmentRef, ButtonPress, ChannelMessage, ChannelRef } from "../platform-adapter.ts";
import { messageIdOf } from "./message-ids.ts";
import {
  blockActionsSchema,
  eventCallbackSchema,
  type MessageEvent,
  messageEventSchema,
  type SlackFile,
  slashCommandSchema,
} from "./slack-schema.ts";
import { mentions, plainText } from "./slack-text.ts";

// One Slack delivery read into what the shared layer takes: a message (a DM, an @mention, a slash
// command), a button press, or the reason it is neither (the bot's own message, an edit, a join…).

export type Incoming =
  | { kind: "message"; message: ChannelMessage }
  | { kind: "button"; press: ButtonPress }
  | { kind: "ignore"; reason: string };

export interface BotIdentity {
  /** The bot's user id (auth.test's user_id): its mention is `<@id>`, its messages carry it. */
  userId: string;
  botId?: string;
}

/** Message subtypes that are someone writing (with a file, or into a thread and the channel). */
const READABLE_SUBTYPES = new Set(["file_share", "thread_broadcast"]);

/** Button values are opaque ids of at most 64 bytes (OutgoingButton.data); longer ones are not ours. */
const MAX_BUTTON_DATA_BYTES = 64;

const ignore = (reason: string): Incoming => ({ kind: "ignore", reason });

/** D… is a DM with the bot; channels (C…), private channels and group DMs (G…) are groups. */
function channelOf(id: string, channelType: string | undefined): ChannelRef {
  const im = channelType === "im" || (channelType === undefined && id.startsWith("D"));
  return { id, type: im ? "private" : "group" };
}

/** The sender chose the name: its last path segment, no control characters. */
function safeName(name: string | undefined): string | undefined {
  const base = name
    ?.split(/[/\\]/)
    .pop()
    ?.replace(/\p{Cc}/gu, "")
    .trim();
  return base && base !== "." && base !== ".." ? base.slice(0, 200) : undefined;
}

/** Files the message carries, to be downloaded with the bot token; tombstones (deleted) have no URL. */
export function attachmentsOf(files: readonly SlackFile[] | undefined): AttachmentRef[] {
  return (files ?? []).flatMap((file) => {
    const url = file.url_private_download ?? file.url_private;
    if (!url) return [];
    return [
      {
        name: safeName(file.name) ?? safeName(file.title) ?? `file-${file.id}`,
        ref: url,
        ...(file.mimetype ? { mimeType: file.mimetype } : {}),
        ...(file.size !== undefined ? { size: file.size } : {}),
      },
    ];
  });
}

function readMessage(event: MessageEvent, eventId: string, bot: BotIdentity): Incoming {
  if (event.subtype !== undefined && !READABLE_SUBTYPES.has(event.subtype))
    return ignore(`message subtype ${event.subtype}`);
  if (!event.user) return ignore("message without a user");
  if (event.user === bot.userId || (event.bot_id !== undefined && event.bot_id === bot.botId))
    return ignore("the bot's own message");
  if (event.bot_id !== undefined) return ignore("message from a bot");
  const text = event.text ?? "";
  const attachments = attachmentsOf(event.files);
  if (text.trim() === "" && attachments.length === 0) return ignore("message with nothing to read");
  const channel = channelOf(event.channel, event.type === "app_mention" ? "channel" : event.channel_type);
  const threaded = event.thread_ts !== undefined && event.thread_ts !== event.ts;
  return {
    kind: "message",
    message: {
      // The same for the `message` and `app_mention` events of one message: the intake keeps one.
      id: messageIdOf(event.ts, event.thread_ts),
      channel,
      sender: { id: event.user, isBot: false },
      text: plainText(text, bot.userId),
      attachments,
      isMention: channel.type === "private" || event.type === "app_mention" || mentions(text, bot.userId),
      ...(threaded && event.thread_ts ? { replyTo: event.thread_ts } : {}),
      dedupeKeys: [`event:${eventId}`],
    },
  };
}

/** An Events API payload (`event_callback`): a message or an @mention, anything else ignored. */
export function readEventCallback(raw: unknown, bot: BotIdentity): Incoming {
  const envelope = eventCallbackSchema.safeParse(raw);
  if (!envelope.success) return ignore("not an event_callback");
  const { event, event_id: eventId } = envelope.data;
  if (event.type !== "message" && event.type !== "app_mention") return ignore(`${event.type} event`);
  const parsed = messageEventSchema.safeParse(event);
  if (!parsed.success) return ignore(`malformed ${event.type} event`);
  return readMessage(parsed.data, eventId, bot);
}

/**
 * A slash command. Slack's client takes any message starting with "/" as one, so `/pw approve 12`
 * (the app's own command) and a command registered under PhoneWork's own name (`/approve 12`) both
 * become the PhoneWork text `/approve 12`; `/pw` alone is `/help`.
 */
export function readSlashCommand(raw: unknown, appCommand: string): Incoming {
  const parsed = slashCommandSchema.safeParse(raw);
  if (!parsed.success) return ignore("malformed slash command");
  const command = parsed.data;
  const args = command.text.trim();
  const text =
    command.command === appCommand
      ? args === ""
        ? "/help"
        : `/${args.replace(/^\/+/, "")}`
      : `${command.command}${args ? ` ${args}` : ""}`;
  const channel: ChannelRef =
    command.channel_name === "directmessage" || command.channel_id.startsWith("D")
      ? { id: command.channel_id, type: "private" }
      : { id: command.channel_id, type: "group" };
  return {
    kind: "message",
    message: {
      id: `slash-${command.trigger_id}`,
      channel,
      sender: {
        id: command.user_id,
        ...(command.user_name ? { name: command.user_name } : {}),
        isBot: false,
      },
      text,
      attachments: [],
      isMention: true,
      dedupeKeys: [`slash:${command.trigger_id}`],
    },
  };
}

/** A press of one of our Block Kit buttons (`block_actions`); its value is the shared layer's data. */
export function readInteraction(raw: unknown): Incoming {
  const parsed = blockActionsSchema.safeParse(raw);
  if (!parsed.success) return ignore("not a block_actions payload");
  const payload = parsed.data;
  const [action] = payload.actions;
  const data = action?.value;
  if (!data) return ignore("button without a value");
  if (Buffer.byteLength(data) > MAX_BUTTON_DATA_BYTES) return ignore("button value over 64 bytes");
  const channelId = payload.channel?.id ?? payload.container?.channel_id;
  if (!channelId) return ignore("button press outside a channel");
  const ts = payload.message?.ts ?? payload.container?.message_ts;
  const name = payload.user.username ?? payload.user.name;
  return {
    kind: "button",
    press: {
      channel: channelOf(channelId, undefined),
      sender: { id: payload.user.id, ...(name ? { name } : {}), isBot: false },
      data,
      ...(ts ? { messageId: messageIdOf(ts, payload.message?.thread_ts) } : {}),
    },
  };
}
