import {
  cannotDm,
  DiscordApiError,
  invalidForm,
  unknownChannel,
  unknownInteraction,
  unknownMessage,
} from "./errors.ts";
import type { DiscordState, FakeChannel, FakeFile, FakeInteraction, FakeMessage, FakeUser } from "./state.ts";

// The REST routes under /api/v10 the bot uses, each checking what Discord checks (lengths, 5 × 5
// buttons, the upload limit, nonces, who may edit what) and changing the state as Discord would.

export interface RestRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  files: Array<FakeFile & { field: string }>;
}

export interface RouteContext {
  state: DiscordState;
  gatewayUrl: () => string;
  cdnUrl: (id: string, filename: string) => string;
  maxUploadBytes: number;
}

type Handler = (ctx: RouteContext, req: RestRequest, params: string[]) => unknown;

const MAX_CONTENT = 2_000;
const EPHEMERAL = 64;
const LOADING = 128;

function channel(ctx: RouteContext, id: string | undefined): FakeChannel {
  const found = id ? ctx.state.channels.get(id) : undefined;
  if (!found) throw unknownChannel();
  return found;
}

function message(ctx: RouteContext, channelId: string | undefined, id: string | undefined): FakeMessage {
  const found = id ? ctx.state.messages.get(id) : undefined;
  if (!found || found.deleted || found.channel_id !== channelId) throw unknownMessage();
  return found;
}

function interactionByToken(ctx: RouteContext, token: string | undefined): FakeInteraction {
  for (const interaction of ctx.state.interactions.values())
    if (interaction.token === token) return interaction;
  throw unknownInteraction();
}

/** Components as Discord checks them: at most 5 rows of at most 5 buttons, custom_id ≤ 100, label ≤ 80. */
function checkComponents(components: unknown): unknown[] {
  if (components === undefined) return [];
  if (!Array.isArray(components) || components.length > 5) throw invalidForm("components: at most 5 rows");
  for (const row of components as Array<{ type?: number; components?: unknown[] }>) {
    if (row.type !== 1 || !Array.isArray(row.components) || row.components.length > 5)
      throw invalidForm("components: an action row holds at most 5 buttons");
    for (const button of row.components as Array<{ custom_id?: string; label?: string }>) {
      if (!button.custom_id || button.custom_id.length > 100)
        throw invalidForm("custom_id: 1–100 characters");
      if ((button.label ?? "").length > 80) throw invalidForm("label: at most 80 characters");
    }
  }
  return components;
}

function checkContent(content: unknown): string {
  if (content === undefined || content === null) return "";
  if (typeof content !== "string") throw invalidForm("content: a string");
  if (content.length > MAX_CONTENT) throw invalidForm(`content: Must be ${MAX_CONTENT} or fewer in length.`);
  return content;
}

function storeFiles(ctx: RouteContext, files: RestRequest["files"]): FakeMessage["attachments"] {
  const total = files.reduce((sum, file) => sum + file.data.length, 0);
  if (total > ctx.maxUploadBytes) throw new DiscordApiError(413, 40005, "Request entity too large");
  return files.map((file) => {
    const id = ctx.state.id();
    ctx.state.files.set(id, file);
    return {
      id,
      filename: file.filename,
      size: file.data.length,
      url: ctx.cdnUrl(id, file.filename),
      ...(file.contentType ? { content_type: file.contentType } : {}),
    };
  });
}

/** A message by the bot (or an interaction's answer) from a JSON or multipart body. */
function botMessage(
  ctx: RouteContext,
  channelId: string,
  req: RestRequest,
  extra: Partial<FakeMessage> = {},
) {
  const content = checkContent(req.body.content);
  const components = checkComponents(req.body.components);
  const attachments = storeFiles(ctx, req.files);
  if (!content && attachments.length === 0 && !extra.interaction)
    throw new DiscordApiError(400, 50006, "Cannot send an empty message");
  let reference: FakeMessage["message_reference"];
  const ref = req.body.message_reference as { message_id?: string; fail_if_not_exists?: boolean } | undefined;
  if (ref?.message_id) {
    const target = ctx.state.messages.get(ref.message_id);
    if (target && target.channel_id === channelId && !target.deleted)
      reference = { message_id: ref.message_id };
    else if (ref.fail_if_not_exists !== false) throw invalidForm("message_reference: Unknown message");
  }
  return ctx.state.addMessage({
    channel_id: channelId,
    author: ctx.state.bot,
    content,
    components,
    attachments,
    flags: Number(req.body.flags ?? 0),
    ...(reference ? { message_reference: reference } : {}),
    ...(typeof req.body.nonce === "string" ? { nonce: req.body.nonce } : {}),
    ...extra,
  });
}

export const publicMessage = (message: FakeMessage) => ({
  id: message.id,
  channel_id: message.channel_id,
  author: message.author,
  content: message.content,
  components: message.components,
  attachments: message.attachments,
  flags: message.flags,
  ...(message.message_reference ? { message_reference: message.message_reference } : {}),
  ...(message.nonce ? { nonce: message.nonce } : {}),
  type: message.message_reference ? 19 : 0,
});

function createMessage(ctx: RouteContext, req: RestRequest, [channelId]: string[]) {
  const target = channel(ctx, channelId);
  if (target.type === 1 && target.recipient && ctx.state.closedDms.has(target.recipient.id)) throw cannotDm();
  const nonce = req.body.nonce;
  if (req.body.enforce_nonce === true && typeof nonce === "string") {
    const earlier = ctx.state
      .messagesOf(target.id)
      .find(
        (m) => m.nonce === nonce && m.author.id === ctx.state.bot.id && ctx.state.now() - m.at < 5 * 60_000,
      );
    if (earlier) return publicMessage(earlier);
  }
  return publicMessage(botMessage(ctx, target.id, req));
}

function editMessage(ctx: RouteContext, req: RestRequest, [channelId, messageId]: string[]) {
  const found = message(ctx, channelId, messageId);
  if (found.author.id !== ctx.state.bot.id)
    throw new DiscordApiError(403, 50005, "Cannot edit a message authored by another user");
  return publicMessage(applyEdit(found, req));
}

function applyEdit(found: FakeMessage, req: RestRequest): FakeMessage {
  found.history.push({ content: found.content, components: found.components });
  if (req.body.content !== undefined) found.content = checkContent(req.body.content);
  if (req.body.components !== undefined) found.components = checkComponents(req.body.components);
  found.flags &= ~LOADING;
  return found;
}

function startThread(ctx: RouteContext, req: RestRequest, [channelId, messageId]: string[]) {
  const parent = channel(ctx, channelId);
  if (parent.type !== 0) throw new DiscordApiError(400, 50024, "Cannot execute action on this channel type");
  message(ctx, channelId, messageId);
  if (ctx.state.channels.has(messageId ?? ""))
    throw new DiscordApiError(400, 160004, "A thread has already been created for this message");
  const thread: FakeChannel = {
    id: messageId ?? "",
    type: 11,
    parent_id: parent.id,
    ...(parent.guild_id ? { guild_id: parent.guild_id } : {}),
    name: String(req.body.name ?? "thread"),
  };
  ctx.state.channels.set(thread.id, thread);
  return thread;
}

function openDm(ctx: RouteContext, req: RestRequest) {
  const user = ctx.state.users.get(String(req.body.recipient_id));
  if (!user) throw invalidForm("recipient_id: Unknown user");
  const dm = ctx.state.dmOf(user);
  return { id: dm.id, type: 1, recipients: [user] };
}

function interactionCallback(ctx: RouteContext, req: RestRequest, [id, token]: string[]) {
  const interaction = ctx.state.interactions.get(id ?? "");
  if (!interaction || interaction.token !== token) throw unknownInteraction();
  if (interaction.callbacks.length > 0)
    throw new DiscordApiError(400, 40060, "Interaction has already been acknowledged.");
  const type = Number(req.body.type);
  const data = (req.body.data ?? {}) as Record<string, unknown>;
  interaction.callbacks.push({ type, at: ctx.state.now(), data });
  if (type === 4 || type === 5) {
    const flags = Number(data.flags ?? 0) | (type === 5 ? LOADING : 0);
    const made = botMessage(
      ctx,
      interaction.channel_id,
      { ...req, body: data },
      {
        interaction: interaction.id,
        ephemeral: (flags & EPHEMERAL) !== 0,
      },
    );
    made.flags = flags;
    interaction.original = made.id;
  }
  return undefined;
}

function followUp(ctx: RouteContext, req: RestRequest, [, token]: string[]) {
  const interaction = interactionByToken(ctx, token);
  const ephemeral = (Number(req.body.flags ?? 0) & EPHEMERAL) !== 0;
  const made = botMessage(ctx, interaction.channel_id, req, { interaction: interaction.id, ephemeral });
  interaction.followUps.push(made.id);
  return publicMessage(made);
}

function original(ctx: RouteContext, token: string | undefined): FakeMessage {
  const interaction = interactionByToken(ctx, token);
  const found = interaction.original ? ctx.state.messages.get(interaction.original) : undefined;
  if (!found || found.deleted) throw unknownMessage();
  return found;
}

const routes: Array<[string, RegExp, Handler]> = [
  [
    "GET",
    /^\/gateway\/bot$/,
    (ctx) => ({
      url: ctx.gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
    }),
  ],
  ["GET", /^\/users\/@me$/, (ctx) => ctx.state.bot],
  ["GET", /^\/channels\/(\d+)$/, (ctx, _req, [id]) => channel(ctx, id)],
  ["POST", /^\/users\/@me\/channels$/, openDm],
  ["POST", /^\/channels\/(\d+)\/messages$/, createMessage],
  ["PATCH", /^\/channels\/(\d+)\/messages\/(\d+)$/, editMessage],
  [
    "DELETE",
    /^\/channels\/(\d+)\/messages\/(\d+)$/,
    (ctx, _req, [c, m]) => {
      message(ctx, c, m).deleted = true;
      return undefined;
    },
  ],
  [
    "PUT",
    /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/,
    (ctx, _req, [c, m]) => {
      message(ctx, c, m);
      return undefined;
    },
  ],
  ["POST", /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/, startThread],
  [
    "PUT",
    /^\/applications\/(\d+)\/commands$/,
    (ctx, req, [app]) => {
      if (app !== ctx.state.applicationId) throw new DiscordApiError(403, 50001, "Missing Access");
      const list = (Array.isArray(req.body) ? req.body : []) as Array<Record<string, unknown>>;
      ctx.state.commands = list.map((command) => ({ ...command, id: ctx.state.id(), application_id: app }));
      return ctx.state.commands;
    },
  ],
  ["POST", /^\/interactions\/(\d+)\/([^/]+)\/callback$/, interactionCallback],
  ["POST", /^\/webhooks\/(\d+)\/([^/]+)$/, followUp],
  [
    "PATCH",
    /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/,
    (ctx, req, [, token]) => publicMessage(applyEdit(original(ctx, token), req)),
  ],
  [
    "DELETE",
    /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/,
    (ctx, _req, [, token]) => {
      original(ctx, token).deleted = true;
      return undefined;
    },
  ],
];

/** Routes that take no bot token (the interaction's token is the credential). */
export const NO_AUTH = /^\/(interactions|webhooks)\//;

export function findRoute(method: string, path: string): { handler: Handler; params: string[] } | undefined {
  for (const [m, pattern, handler] of routes) {
    if (m !== method) continue;
    const match = pattern.exec(path);
    if (match) return { handler, params: match.slice(1).map((p) => decodeURIComponent(p)) };
  }
  return undefined;
}

export type { FakeUser };
