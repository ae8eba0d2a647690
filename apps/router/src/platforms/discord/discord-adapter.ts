import type { Logger } from "@phonework/runtime";
import type { Capabilities, PlatformAdapter, PlatformSendOptions } from "../platform-adapter.ts";
import { Channels } from "./channels.ts";
import { createDiscordRest, discordApiUrl } from "./discord-api.ts";
import { toPlatformError } from "./discord-error.ts";
import { createEventHandler, type DispatchHandler } from "./event-handler.ts";
import { downloadFile } from "./file-download.ts";
import { connectGateway, type Gateway } from "./gateway.ts";
import { readySchema } from "./gateway-schema.ts";
import { Interactions } from "./interactions.ts";
import { actionRows, NO_MENTIONS, nonceOf, replyReference, snowflake } from "./outgoing.ts";
import { slashCommands } from "./slash-commands.ts";

// Discord as a platform: the gateway (through @discordjs/ws) brings DMs, mentions in servers,
// button presses and slash commands; REST (through @discordjs/rest) sends, edits, uploads, opens
// DMs and threads. This file wires; each part has its own.
//
// Edits do not notify on Discord. The shared layer's default result mode ("send") already sends
// the final answer as a new message after the progress message, so it notifies; a user who
// chooses `/result replace` gets the answer in place of the progress message, silently.

export interface DiscordAdapterOptions {
  /** The adapter's name from the config. */
  name: string;
  token: string;
  /** Another Discord API (DISCORD_API_URL), e.g. http://127.0.0.1:9000/api; the gateway address comes from it. */
  apiUrl?: string;
  logger: Logger;
}

const MiB = 1024 * 1024;
/** A link in an answer should not grow a preview card (as on Telegram). */
const SUPPRESS_EMBEDS = 1 << 2;

export const DISCORD_CAPABILITIES: Capabilities = {
  maxMessageLength: 2000,
  canEdit: true,
  canSendButtons: true,
  canReply: true,
  markdown: "discord-md",
  threads: "threads",
  filesIn: true,
  voiceIn: true,
  // A bot's upload limit in a server without boosts (and in DMs).
  maxFileBytes: 10 * MiB,
  maxImageBytes: 10 * MiB,
};

/** Runs a REST call; whatever fails comes out as the PlatformError the send queue reads. */
async function platformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toPlatformError(error);
  }
}

export function createDiscordAdapter(options: DiscordAdapterOptions): PlatformAdapter {
  const { name } = options;
  const apiUrl = discordApiUrl(options.apiUrl);
  const logger = options.logger.child({ adapter: name });
  const rest = createDiscordRest(options.token, apiUrl);
  const channels = new Channels(rest.send);
  const interactions = new Interactions(rest.control, logger);
  let gateway: Gateway | undefined;
  let applicationId: string | undefined;

  async function send(channelId: string, body: Record<string, unknown>): Promise<{ messageId: string }> {
    const sent = (await platformCall(() =>
      rest.send.post(`/channels/${channelId}/messages`, {
        body: { ...body, flags: SUPPRESS_EMBEDS, allowed_mentions: NO_MENTIONS },
      }),
    )) as { id: string };
    return { messageId: sent.id };
  }

  /** Where a text goes: under a main message (its thread, or a reply in a DM), else the chat. */
  async function target(
    channelId: string,
    sendOptions: PlatformSendOptions,
  ): Promise<{ channelId: string; replyTo?: string }> {
    if (sendOptions.thread) return channels.detailsOf(channelId, sendOptions.thread);
    return { channelId, ...(sendOptions.replyTo ? { replyTo: sendOptions.replyTo } : {}) };
  }

  return {
    name,
    type: "discord",
    capabilities: DISCORD_CAPABILITIES,

    async start(events) {
      let handler: DispatchHandler | undefined;
      gateway = await connectGateway({
        token: options.token,
        rest: rest.control,
        logger,
        onDispatch: async (event, data) => {
          // READY comes first on every new session: who the bot is, before any message.
          if (event === "READY") {
            const ready = readySchema.parse(data);
            applicationId = ready.application.id;
            handler = createEventHandler({
              events,
              bot: { id: ready.user.id },
              channels,
              interactions,
              logger,
            });
            return;
          }
          await handler?.(event, data);
        },
      });
      applicationId = gateway.applicationId;
      logger.info({ bot: gateway.botId }, "Discord adapter started");
    },

    async stop() {
      interactions.close();
      await gateway?.stop();
      gateway = undefined;
    },

    async send(to, text, sendOptions) {
      const channelId = await platformCall(() => channels.channelOf(to));
      const components = sendOptions.buttons?.length ? actionRows(sendOptions.buttons, logger) : undefined;
      if (!sendOptions.thread) {
        const filled = await interactions.fill(channelId, {
          content: text,
          ...(components ? { components } : {}),
        });
        if (filled) return { messageId: filled };
      }
      const where = await platformCall(() => target(channelId, sendOptions));
      return send(where.channelId, {
        content: text,
        nonce: nonceOf(sendOptions.idempotencyKey),
        enforce_nonce: true,
        ...(where.replyTo ? { message_reference: replyReference(where.replyTo) } : {}),
        ...(components ? { components } : {}),
      });
    },

    async edit(to, messageId, text, editOptions) {
      const channelId = await platformCall(() => channels.channelOf(to));
      const id = snowflake(messageId, "message");
      // No buttons given: the message keeps none (an empty list removes them).
      const components = editOptions?.buttons?.length ? actionRows(editOptions.buttons, logger) : [];
      await platformCall(() =>
        rest.send.patch(`/channels/${channelId}/messages/${id}`, {
          body: { content: text, components, allowed_mentions: NO_MENTIONS },
        }),
      );
    },

    async sendFile(to, file, fileOptions) {
      const channelId = await platformCall(() => channels.channelOf(to));
      const sent = (await platformCall(() =>
        rest.send.post(`/channels/${channelId}/messages`, {
          body: {
            nonce: nonceOf(fileOptions.idempotencyKey),
            enforce_nonce: true,
            attachments: [{ id: 0, filename: file.name }],
            allowed_mentions: NO_MENTIONS,
          },
          files: [
            { name: file.name, data: file.data, ...(file.mimeType ? { contentType: file.mimeType } : {}) },
          ],
        }),
      )) as { id: string };
      return { messageId: sent.id };
    },

    download: (attachment) =>
      downloadFile({ apiUrl, maxBytes: DISCORD_CAPABILITIES.maxFileBytes }, attachment.ref),

    async react(to, messageId, emoji) {
      const channelId = await platformCall(() => channels.channelOf(to));
      const id = snowflake(messageId, "message");
      await platformCall(() =>
        rest.send.put(`/channels/${channelId}/messages/${id}/reactions/${encodeURIComponent(emoji)}/@me`),
      );
    },

    async setCommands(commands) {
      if (!applicationId) throw new Error("Discord adapter not started: no application id yet");
      const appId = applicationId;
      await platformCall(() =>
        rest.control.put(`/applications/${appId}/commands`, { body: slashCommands(commands, logger) }),
      );
    },

    status: () => ({
      platform: "discord",
      name,
      ...(gateway ? gateway.status() : { connected: false }),
    }),
  };
}
