import type { REST } from "@discordjs/rest";
import type { Logger } from "@phonework/runtime";
import type { Destination, OutgoingButton, OutgoingFile, PlatformSendOptions } from "../platform-adapter.ts";
import type { Channels } from "./channels.ts";
import { toPlatformError } from "./discord-error.ts";
import type { Interactions } from "./interactions.ts";
import { actionRows, NO_MENTIONS, nonceOf, replyReference, snowflake } from "./outgoing.ts";

// What the bot sends, edits, uploads and reacts with, through the send client (a rate limit is
// thrown to the shared send queue). A text goes under its main message when asked (the thread, or
// a reply in a DM), into the "thinking…" placeholder of a slash command waiting in its chat, or as
// a new message carrying a nonce, so a retried send is shown once.

/** A link in an answer should not grow a preview card (as on Telegram). */
const SUPPRESS_EMBEDS = 1 << 2;

export interface MessageDeps {
  rest: REST;
  channels: Channels;
  interactions: Interactions;
  logger: Logger;
}

/** Runs a REST call; whatever fails comes out as the PlatformError the send queue reads. */
export async function platformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toPlatformError(error);
  }
}

async function post(deps: MessageDeps, channelId: string, body: Record<string, unknown>) {
  const sent = (await platformCall(() =>
    deps.rest.post(`/channels/${channelId}/messages`, {
      body: { ...body, flags: SUPPRESS_EMBEDS, allowed_mentions: NO_MENTIONS },
    }),
  )) as { id: string };
  return { messageId: sent.id };
}

export async function sendText(
  deps: MessageDeps,
  to: Destination,
  text: string,
  options: PlatformSendOptions,
): Promise<{ messageId: string }> {
  const channelId = await platformCall(() => deps.channels.channelOf(to));
  const components = options.buttons?.length ? actionRows(options.buttons, deps.logger) : undefined;
  if (!options.thread) {
    const filled = await deps.interactions.fill(channelId, to.userId, {
      content: text,
      ...(components ? { components } : {}),
    });
    if (filled) return { messageId: filled };
  }
  const where = options.thread
    ? await platformCall(() => deps.channels.detailsOf(channelId, options.thread ?? ""))
    : { channelId, ...(options.replyTo ? { replyTo: options.replyTo } : {}) };
  return post(deps, where.channelId, {
    content: text,
    nonce: nonceOf(options.idempotencyKey),
    enforce_nonce: true,
    ...(where.replyTo ? { message_reference: replyReference(where.replyTo) } : {}),
    ...(components ? { components } : {}),
  });
}

export async function editText(
  deps: MessageDeps,
  to: Destination,
  messageId: string,
  text: string,
  buttons: OutgoingButton[][] | undefined,
): Promise<void> {
  const channelId = await platformCall(() => deps.channels.channelOf(to));
  const id = snowflake(messageId, "message");
  // No buttons given: the message keeps none (an empty list removes them).
  const components = buttons?.length ? actionRows(buttons, deps.logger) : [];
  await platformCall(() =>
    deps.rest.patch(`/channels/${channelId}/messages/${id}`, {
      body: { content: text, components, allowed_mentions: NO_MENTIONS },
    }),
  );
}

/** One multipart upload: the file, and the message's JSON as payload_json. */
export async function uploadFile(
  deps: MessageDeps,
  to: Destination,
  file: OutgoingFile,
  idempotencyKey: string,
): Promise<{ messageId: string }> {
  const channelId = await platformCall(() => deps.channels.channelOf(to));
  const sent = (await platformCall(() =>
    deps.rest.post(`/channels/${channelId}/messages`, {
      body: {
        nonce: nonceOf(idempotencyKey),
        enforce_nonce: true,
        attachments: [{ id: 0, filename: file.name }],
        allowed_mentions: NO_MENTIONS,
      },
      files: [{ name: file.name, data: file.data, ...(file.mimeType ? { contentType: file.mimeType } : {}) }],
    }),
  )) as { id: string };
  return { messageId: sent.id };
}

export async function addReaction(deps: MessageDeps, to: Destination, messageId: string, emoji: string) {
  const channelId = await platformCall(() => deps.channels.channelOf(to));
  const id = snowflake(messageId, "message");
  await platformCall(() =>
    deps.rest.put(`/channels/${channelId}/messages/${id}/reactions/${encodeURIComponent(emoji)}/@me`),
  );
}
