import { randomUUID } from "node:crypto";
import type { Logger } from "@phonework/runtime";
import type { Capabilities, PlatformAdapter } from "../platform-adapter.ts";
import { Channels } from "./channels.ts";
import { createDiscordRest, discordApiUrl } from "./discord-api.ts";
import { createEventHandler, type DispatchHandler } from "./event-handler.ts";
import { downloadFile } from "./file-download.ts";
import { connectGateway, type Gateway } from "./gateway.ts";
import { readySchema } from "./gateway-schema.ts";
import { Interactions } from "./interactions.ts";
import { addReaction, editText, platformCall, sendText, uploadFile } from "./messages.ts";
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

export const DISCORD_CAPABILITIES: Capabilities = {
  maxMessageLength: 2000,
  canEdit: true,
  canSendButtons: true,
  canReply: true,
  markdown: "discord-md",
  threads: "threads",
  filesIn: true,
  voiceIn: true,
  imagesIn: true,
  // A bot's upload limit in a server without boosts (and in DMs).
  maxFileBytes: 10 * MiB,
  maxImageBytes: 10 * MiB,
};

export function createDiscordAdapter(options: DiscordAdapterOptions): PlatformAdapter {
  const { name } = options;
  const apiUrl = discordApiUrl(options.apiUrl);
  const logger = options.logger.child({ adapter: name });
  const rest = createDiscordRest(options.token, apiUrl);
  const channels = new Channels(rest.send);
  const interactions = new Interactions(rest.control, logger);
  const messages = { rest: rest.send, channels, interactions, logger };
  let gateway: Gateway | undefined;
  let applicationId: string | undefined;

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
              notify: (channelId, text) =>
                sendText(messages, { chatId: channelId, userId: "" }, text, { idempotencyKey: randomUUID() })
                  .then(() => {})
                  .catch((error: unknown) =>
                    logger.warn({ error: String(error) }, "Discord notice not sent"),
                  ),
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

    send: (to, text, sendOptions) => sendText(messages, to, text, sendOptions),
    edit: (to, messageId, text, editOptions) => editText(messages, to, messageId, text, editOptions?.buttons),
    sendFile: (to, file, fileOptions) => uploadFile(messages, to, file, fileOptions.idempotencyKey),
    download: (attachment) =>
      downloadFile({ apiUrl, maxBytes: DISCORD_CAPABILITIES.maxFileBytes }, attachment.ref),
    react: (to, messageId, emoji) => addReaction(messages, to, messageId, emoji),

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
