import type { Clock, Logger } from "@phonework/runtime";
import {
  type Capabilities,
  type Destination,
  type PlatformAdapter,
  PlatformError,
  type PlatformSendOptions,
} from "../platform-adapter.ts";
import { createDeliveryHandler, type DeliveryHandler } from "./delivery-handler.ts";
import { downloadFile, uploadFile } from "./file-transfer.ts";
import type { BotIdentity } from "./incoming-event.ts";
import { isSlackMessageId, threadOf, threadRootOf, tsOf } from "./message-ids.ts";
import { buttonBlocks, TEXT_OPTIONS } from "./outgoing.ts";
import { createSlackClient, slackApiUrl } from "./slack-api.ts";
import { slackCall } from "./slack-error.ts";
import { type SocketMode, startSocketMode } from "./socket-mode.ts";
import { createSlackWebhook } from "./webhook-endpoint.ts";

// Slack as a platform, through the official Web API client: envelopes over Socket Mode or signed
// HTTP posts, mrkdwn messages with Block Kit buttons, threads, edits and files. This file wires;
// each part has its own.

export type SlackMode =
  | { kind: "socket"; appToken: string }
  | {
      kind: "http";
      signingSecret: string;
      maxAgeMs: number;
      seen: { checkAndRemember(ids: string[]): boolean; forget(ids: string[]): void };
      clock: Clock;
    };

export interface SlackAdapterOptions {
  /** The adapter's name from the config; also names its webhook path, /webhook/<name>. */
  name: string;
  /** The bot token (xoxb-…). */
  botToken: string;
  /** Another Web API server (SLACK_API_URL); Socket Mode's apps.connections.open goes there too. */
  apiUrl?: string;
  mode: SlackMode;
  /** The app's own slash command, which carries PhoneWork's commands (`/pw approve 12`). */
  appCommand?: string;
  logger: Logger;
}

const MB = 1024 * 1024;

export const SLACK_CAPABILITIES: Capabilities = {
  // Slack takes up to 40,000 characters in `text`, but a message with buttons carries its text in a
  // section block, which holds at most 3,000; one limit for every piece keeps a split answer's last
  // piece (the one that gets the buttons) as long as the others.
  maxMessageLength: 3000,
  canEdit: true,
  canSendButtons: true,
  // Slack has no quoted replies; an answer to a message in a thread goes into that thread.
  canReply: true,
  replyIsPlace: true,
  markdown: "slack-mrkdwn",
  threads: "threads",
  filesIn: true,
  // Voice clips and audio files arrive as files and are handed on as attachments like any other.
  voiceIn: true,
  imagesIn: true,
  // Slack takes up to 1 GB; the router holds a file in memory, so the same caps as elsewhere.
  maxFileBytes: 50 * MB,
  maxImageBytes: 20 * MB,
};

export const DEFAULT_APP_COMMAND = "/pw";

/** HTTP mode's endpoint, /webhook/<name>, taking deliveries while the adapter receives. */
function httpWebhook(
  name: string,
  mode: Extract<SlackMode, { kind: "http" }>,
  handler: () => DeliveryHandler | undefined,
  logger: Logger,
) {
  return createSlackWebhook({
    path: `/webhook/${name}`,
    signingSecret: mode.signingSecret,
    maxAgeMs: mode.maxAgeMs,
    clock: mode.clock,
    seen: mode.seen,
    handler,
    logger,
  });
}

export function createSlackAdapter(options: SlackAdapterOptions): PlatformAdapter {
  const { name, mode } = options;
  const logger = options.logger.child({ adapter: name });
  const apiUrl = slackApiUrl(options.apiUrl);
  const client = createSlackClient(options.botToken, { apiUrl, logger });
  const dmChannels = new Map<string, string>();
  let handler: DeliveryHandler | undefined;
  let socket: SocketMode | undefined;
  let bot: (BotIdentity & { team?: string }) | undefined;

  /** The chat, or the user's DM with the bot (opened once, then remembered). */
  const channelOf = async (to: Destination): Promise<string> => {
    if (to.chatId) return to.chatId;
    const known = dmChannels.get(to.userId);
    if (known) return known;
    const opened = await slackCall("conversations.open", () =>
      client.conversations.open({ users: to.userId }),
    );
    const id = opened.channel?.id;
    if (!id) throw new PlatformError("permanent", "conversations.open gave no channel");
    dmChannels.set(to.userId, id);
    return id;
  };

  /**
   * Under `thread`'s thread; else in the thread of the message answered, when it is in one. Ids that
   * name no Slack message (a slash command's, a file's) put nothing in a thread.
   */
  const threadTsFor = ({ thread, replyTo }: PlatformSendOptions): string | undefined => {
    if (thread && isSlackMessageId(thread)) return threadRootOf(thread);
    return replyTo && isSlackMessageId(replyTo) ? threadOf(replyTo) : undefined;
  };

  const webhook = mode.kind === "http" ? httpWebhook(name, mode, () => handler, logger) : undefined;

  return {
    name,
    type: "slack",
    capabilities: SLACK_CAPABILITIES,
    ...(webhook ? { webhook } : {}),

    async start(events) {
      const me = await slackCall("auth.test", () => client.auth.test());
      if (!me.user_id) throw new Error("auth.test gave no user_id for the bot token");
      bot = {
        userId: me.user_id,
        ...(me.bot_id ? { botId: me.bot_id } : {}),
        ...(me.team ? { team: me.team } : {}),
      };
      handler = createDeliveryHandler({
        events,
        bot,
        appCommand: options.appCommand ?? DEFAULT_APP_COMMAND,
        showPressAnswer: async (press, text) => {
          await slackCall("chat.postEphemeral", () =>
            client.chat.postEphemeral({ channel: press.channel.id, user: press.sender.id, text }),
          );
        },
        logger,
      });
      if (mode.kind === "socket") {
        socket = await startSocketMode({ appToken: mode.appToken, apiUrl, handler: () => handler, logger });
      }
      logger.info({ team: me.team, mode: mode.kind }, "Slack adapter started");
    },

    async stop() {
      handler = undefined;
      await socket?.stop();
      socket = undefined;
    },

    async send(to, text, sendOptions) {
      // Slack has no idempotency key: the key is only logged, to follow a retried send.
      logger.debug({ idempotencyKey: sendOptions.idempotencyKey }, "Slack chat.postMessage");
      const channel = await channelOf(to);
      const threadTs = threadTsFor(sendOptions);
      const sent = await slackCall("chat.postMessage", () =>
        client.chat.postMessage({
          channel,
          text,
          ...TEXT_OPTIONS,
          ...(threadTs ? { thread_ts: threadTs } : {}),
          ...(sendOptions.buttons?.length ? { blocks: buttonBlocks(text, sendOptions.buttons) } : {}),
        }),
      );
      if (!sent.ts) throw new PlatformError("permanent", "chat.postMessage gave no ts");
      return { messageId: threadTs ? `${threadTs}/${sent.ts}` : sent.ts };
    },

    async edit(to, messageId, text, editOptions) {
      const channel = await channelOf(to);
      // An empty blocks list takes the buttons off; with buttons, the text goes in a section.
      const blocks = editOptions?.buttons?.length ? buttonBlocks(text, editOptions.buttons) : [];
      await slackCall("chat.update", () =>
        client.chat.update({ channel, ts: tsOf(messageId), text, blocks, ...TEXT_OPTIONS }),
      );
    },

    async sendFile(to, file, fileOptions) {
      logger.debug({ idempotencyKey: fileOptions.idempotencyKey, file: file.name }, "Slack file upload");
      return uploadFile(client, await channelOf(to), file, undefined);
    },

    download: (attachment) =>
      downloadFile(
        { token: options.botToken, apiUrl, maxBytes: SLACK_CAPABILITIES.maxFileBytes },
        attachment.ref,
      ),

    status: () => ({
      platform: "slack",
      name,
      mode: mode.kind,
      team: bot?.team ?? null,
      socket: mode.kind === "socket" ? (socket?.state ?? "stopped") : null,
    }),
  };
}
