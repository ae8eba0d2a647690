import { randomBytes } from "node:crypto";
import type { FakeGateway } from "./gateway.ts";
import { publicMessage } from "./rest-routes.ts";
import type { DiscordState, FakeChannel, FakeMessage, FakeUser } from "./state.ts";

// What users do, as gateway dispatches to the bot: a message in a DM or a server channel (with
// the mention a client would write, and attachments the fake serves from its CDN route), a button
// press and a slash command (INTERACTION_CREATE). These throw a plain Error for a test's mistake
// (pressing a button that is not there).

export interface AttachmentInput {
  filename: string;
  data: Buffer | string;
  contentType?: string;
  /** A voice message (audio/ogg with a duration). */
  voice?: boolean;
}

export interface MessageInput {
  from: FakeUser;
  /** Default: the DM channel with `from`. */
  channel?: FakeChannel;
  content: string;
  /** Write "<@bot> " before the content (a mention in a server channel). */
  mentionBot?: boolean;
  attachments?: AttachmentInput[];
  /** The message this one replies to. */
  replyTo?: string;
}

export interface Injector {
  state: DiscordState;
  gateway: FakeGateway;
  cdnUrl(id: string, filename: string): string;
}

const userOf = (user: FakeUser) => ({ ...user, discriminator: "0", avatar: null });

export function injectMessage(deps: Injector, input: MessageInput): FakeMessage {
  const { state } = deps;
  const channel = input.channel ?? state.dmOf(input.from);
  const content = input.mentionBot ? `<@${state.bot.id}> ${input.content}` : input.content;
  const attachments = (input.attachments ?? []).map((file) => {
    const id = state.id();
    const data = Buffer.from(file.data);
    const contentType = file.contentType ?? (file.voice ? "audio/ogg" : undefined);
    state.files.set(id, { filename: file.filename, data, ...(contentType ? { contentType } : {}) });
    return {
      id,
      filename: file.filename,
      size: data.length,
      url: deps.cdnUrl(id, file.filename),
      ...(contentType ? { content_type: contentType } : {}),
      ...(file.voice ? { duration_secs: 2.5 } : {}),
    };
  });
  const replied = input.replyTo ? state.messages.get(input.replyTo) : undefined;
  const message = state.addMessage({
    channel_id: channel.id,
    author: input.from,
    content,
    components: [],
    attachments,
    flags: 0,
    ...(replied ? { message_reference: { message_id: replied.id } } : {}),
  });
  deps.gateway.dispatch("MESSAGE_CREATE", {
    ...publicMessage(message),
    author: userOf(input.from),
    channel_type: channel.type,
    ...(channel.guild_id ? { guild_id: channel.guild_id, member: { roles: [] } } : {}),
    mentions: input.mentionBot || content.includes(`<@${state.bot.id}>`) ? [userOf(state.bot)] : [],
    ...(replied ? { referenced_message: { ...publicMessage(replied), author: userOf(replied.author) } } : {}),
    timestamp: new Date(state.now()).toISOString(),
  });
  return message;
}

function interaction(
  deps: Injector,
  input: { from: FakeUser; channel: FakeChannel; type: 2 | 3; data: unknown; message?: FakeMessage },
): string {
  const { state } = deps;
  const id = state.id();
  const token = `aW50ZXJhY3Rpb24${randomBytes(24).toString("base64url")}`;
  state.interactions.set(id, {
    id,
    token,
    type: input.type,
    channel_id: input.channel.id,
    user: input.from,
    at: state.now(),
    callbacks: [],
    followUps: [],
  });
  const who = input.channel.guild_id
    ? { guild_id: input.channel.guild_id, member: { user: userOf(input.from), roles: [] } }
    : { user: userOf(input.from) };
  deps.gateway.dispatch("INTERACTION_CREATE", {
    id,
    application_id: state.applicationId,
    type: input.type,
    token,
    version: 1,
    channel_id: input.channel.id,
    channel: { id: input.channel.id, type: input.channel.type },
    ...who,
    data: input.data,
    ...(input.message ? { message: publicMessage(input.message) } : {}),
  });
  return id;
}

export function pressButton(
  deps: Injector,
  input: { from: FakeUser; messageId: string; customId: string },
): string {
  const message = deps.state.messages.get(input.messageId);
  const buttons = (
    (message?.components ?? []) as Array<{ components: Array<{ custom_id?: string }> }>
  ).flatMap((row) => row.components);
  if (!message || !buttons.some((button) => button.custom_id === input.customId))
    throw new Error(`fake-discord: message ${input.messageId} has no button "${input.customId}"`);
  const channel = deps.state.channels.get(message.channel_id);
  if (!channel) throw new Error(`fake-discord: no channel ${message.channel_id}`);
  return interaction(deps, {
    from: input.from,
    channel,
    type: 3,
    data: { custom_id: input.customId, component_type: 2 },
    message,
  });
}

export function slashCommand(
  deps: Injector,
  input: { from: FakeUser; channel?: FakeChannel; name: string; args?: string },
): string {
  const channel = input.channel ?? deps.state.dmOf(input.from);
  const options = input.args ? [{ name: "args", type: 3, value: input.args }] : [];
  return interaction(deps, {
    from: input.from,
    channel,
    type: 2,
    data: { id: deps.state.id(), name: input.name, type: 1, options },
  });
}
