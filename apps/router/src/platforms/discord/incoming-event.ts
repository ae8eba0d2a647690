import type { AttachmentRef, ButtonPress, ChannelMessage, ChannelRef, Sender } from "../platform-adapter.ts";
import { attachmentsOf } from "./attachments.ts";
import {
  type CommandOption,
  type DiscordInteraction,
  type DiscordMessage,
  type DiscordUser,
  interactionSchema,
  messageSchema,
} from "./gateway-schema.ts";

// One gateway dispatch, read into what the shared layer takes: a message (typed, or a slash
// command as its text), a button press, or the reason it is neither (the bot's own message, a
// webhook's, a join notice, a shape we do not know).

export interface BotIdentity {
  /** The bot user's id. */
  id: string;
}

/** What the adapter needs to answer an interaction later (its token is valid for 15 minutes). */
export interface InteractionHandle {
  id: string;
  token: string;
  applicationId: string;
}

export type IncomingEvent =
  | { kind: "message"; message: ChannelMessage }
  | { kind: "command"; message: ChannelMessage; interaction: InteractionHandle }
  | { kind: "button"; press: ButtonPress; interaction: InteractionHandle }
  | { kind: "ignore"; reason: string };

/** Messages a user writes: plain (0) and replies (19); the rest are notices (joins, pins…). */
const USER_MESSAGE_TYPES = new Set([0, 19]);
/** A custom_id is at most 100 characters; anything longer was not sent by us. */
const MAX_CUSTOM_ID = 100;
const DM_CHANNEL = 1;

const ignore = (reason: string): IncomingEvent => ({ kind: "ignore", reason });

function senderOf(user: DiscordUser): Sender {
  const name = user.global_name ?? user.username;
  return { id: user.id, ...(name ? { name } : {}), isBot: user.bot === true };
}

function channelOf(channelId: string, guildId: string | undefined, channelType?: number): ChannelRef {
  const isDm = channelType === DM_CHANNEL || guildId === undefined;
  return { id: channelId, type: isDm ? "private" : "group" };
}

/** `<@id>` and the older `<@!id>`: how a mention of the bot is written in a message's content. */
const mentionOf = (bot: BotIdentity) => new RegExp(`<@!?${bot.id}>`, "g");

/** The text as the shared layer reads it: mentions of the bot cut out, so `@bot /status` is `/status`. */
export function withoutBotMention(content: string, bot: BotIdentity): string {
  return content
    .replace(mentionOf(bot), " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

function unsupportedKind(message: DiscordMessage): string | undefined {
  if (message.sticker_items?.length) return "sticker";
  if (message.poll !== undefined && message.poll !== null) return "poll";
  return undefined;
}

export function readMessage(raw: unknown, bot: BotIdentity): IncomingEvent {
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) return ignore("malformed message");
  const message = parsed.data;
  if (message.author.id === bot.id) return ignore("the bot's own message");
  if (message.webhook_id) return ignore("message from a webhook");
  if (message.author.bot) return ignore("message from a bot");
  if (!USER_MESSAGE_TYPES.has(message.type)) return ignore(`message of type ${message.type}`);
  const channel = channelOf(message.channel_id, message.guild_id, message.channel_type);
  const attachments: AttachmentRef[] = attachmentsOf(message.attachments);
  const text = withoutBotMention(message.content, bot);
  const unsupported = text === "" && attachments.length === 0 ? unsupportedKind(message) : undefined;
  // Empty content with nothing attached: an embed-only message, or the Message Content intent is off.
  if (text === "" && attachments.length === 0 && !unsupported) return ignore("message without content");
  const repliesToBot = message.referenced_message?.author?.id === bot.id;
  const mentioned =
    message.mentions.some((user) => user.id === bot.id) || mentionOf(bot).test(message.content);
  const replyTo = message.message_reference?.message_id;
  return {
    kind: "message",
    message: {
      id: message.id,
      channel,
      sender: senderOf(message.author),
      text,
      attachments,
      isMention: channel.type === "private" || mentioned || repliesToBot,
      ...(replyTo ? { replyTo } : {}),
      ...(unsupported ? { unsupported } : {}),
    },
  };
}

/** A slash command's arguments, in order: `/new myproject codex` from two string options. */
function argumentsOf(options: CommandOption[] | undefined): string[] {
  return (options ?? []).flatMap((option) =>
    option.options
      ? [option.name, ...argumentsOf(option.options)]
      : option.value !== undefined
        ? [String(option.value)]
        : [],
  );
}

function readInteractionData(interaction: DiscordInteraction): IncomingEvent {
  const user = interaction.member?.user ?? interaction.user;
  if (!user) return ignore("interaction without a user");
  if (user.bot) return ignore("interaction from a bot");
  const channelId = interaction.channel_id ?? interaction.channel?.id;
  if (!channelId) return ignore("interaction outside a channel");
  const channel = channelOf(channelId, interaction.guild_id, interaction.channel?.type);
  const handle = { id: interaction.id, token: interaction.token, applicationId: interaction.application_id };
  const data = interaction.data;
  if (interaction.type === 2 && data?.name) {
    const text = [`/${data.name}`, ...argumentsOf(data.options)].join(" ").trim();
    return {
      kind: "command",
      interaction: handle,
      message: {
        id: interaction.id,
        channel,
        sender: senderOf(user),
        text,
        attachments: [],
        isMention: true,
      },
    };
  }
  if (interaction.type === 3 && data?.component_type === 2 && data.custom_id) {
    if (data.custom_id.length > MAX_CUSTOM_ID) return ignore("custom_id over 100 characters");
    return {
      kind: "button",
      interaction: handle,
      press: {
        channel,
        sender: senderOf(user),
        data: data.custom_id,
        ...(interaction.message ? { messageId: interaction.message.id } : {}),
      },
    };
  }
  return ignore(`interaction of type ${interaction.type}`);
}

export function readInteraction(raw: unknown): IncomingEvent {
  const parsed = interactionSchema.safeParse(raw);
  if (!parsed.success) return ignore("malformed interaction");
  return readInteractionData(parsed.data);
}

/** A dispatch by its event name; everything but messages and interactions is ignored. */
export function readDispatch(event: string, data: unknown, bot: BotIdentity): IncomingEvent {
  if (event === "MESSAGE_CREATE") return readMessage(data, bot);
  if (event === "INTERACTION_CREATE") return readInteraction(data);
  return ignore(`${event} dispatch`);
}
