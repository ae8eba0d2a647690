import { randomBytes } from "node:crypto";
import { waitFor } from "../shared/wait-for.ts";
import type { DiscordFault } from "./faults.ts";
import { FaultQueue } from "./faults.ts";
import { FakeGateway } from "./gateway.ts";
import {
  type AttachmentInput,
  injectMessage,
  type MessageInput,
  pressButton,
  slashCommand,
} from "./inject.ts";
import { CallLog, type DiscordCall, listenDiscord } from "./server.ts";
import {
  DiscordState,
  type FakeChannel,
  type FakeInteraction,
  type FakeMessage,
  type FakeUser,
} from "./state.ts";
import { renderTranscript, type TranscriptEntry, transcriptEntry } from "./transcript.ts";

// A fake Discord for one bot, which the real @discordjs/rest and @discordjs/ws talk to through
// DISCORD_API_URL (`<url>/api`): REST, the gateway (with RESUME and replay), interactions and
// their webhooks, uploads and a CDN, recorded calls, scripted failures and dropped connections.

export interface FakeDiscordOptions {
  /** Default 41,250 ms, as Discord's; lower to see heartbeats in a test. */
  heartbeatIntervalMs?: number;
  /** The privileged Message Content intent enabled for the app (default true); off, IDENTIFY with it is closed 4014. */
  messageContentIntent?: boolean;
  /** Upload limit per message (default 10 MiB). */
  maxUploadBytes?: number;
  now?: () => number;
}

export interface FakeDiscord {
  /** The server's origin; DISCORD_API_URL is `apiUrl`. */
  url: string;
  apiUrl: string;
  token: string;
  bot: FakeUser;
  applicationId: string;

  user(input?: { username?: string; id?: string }): FakeUser;
  dm(user: FakeUser): FakeChannel;
  /** A text channel in a server (guild). */
  guildChannel(name?: string): FakeChannel;
  closeDms(user: FakeUser): void;

  sendMessage(input: MessageInput): FakeMessage;
  pressButton(input: { from: FakeUser; messageId: string; customId: string }): string;
  slashCommand(input: { from: FakeUser; channel?: FakeChannel; name: string; args?: string }): string;
  /** Any dispatch (a shape the bot should ignore, a hostile payload). */
  dispatch(event: string, data: unknown): void;

  /** Drops the gateway connection; its RESUME replays what it missed, and `redeliver` already-sent dispatches. */
  dropConnection(options?: { redeliver?: number }): void;
  reconnect(): void;
  invalidateSession(): void;
  gateway(): { connected: boolean; identifies: number; resumes: number; heartbeats: number };

  calls: DiscordCall[];
  callsOf(method: string, path: string | RegExp): DiscordCall[];
  waitForCall(
    method: string,
    path: string | RegExp,
    predicate?: (call: DiscordCall) => boolean,
    timeoutMs?: number,
  ): Promise<DiscordCall>;
  failNext(route: string | RegExp, fault: DiscordFault): void;

  transcript(channelId: string): TranscriptEntry[];
  renderTranscript(channelId: string): string;
  message(id: string): FakeMessage | undefined;
  channel(id: string): FakeChannel | undefined;
  interaction(id: string): FakeInteraction | undefined;
  file(attachmentId: string): Buffer | undefined;
  commands(): unknown[];
  /** The first bot message in `channelId` (past or future) whose content matches. */
  waitForBot(channelId: string, pattern: RegExp, timeoutMs?: number): Promise<TranscriptEntry>;
  close(): Promise<void>;
}

export type {
  AttachmentInput as DiscordAttachmentInput,
  DiscordCall,
  DiscordFault,
  FakeChannel as DiscordChannel,
  FakeMessage as DiscordMessage,
  FakeUser as DiscordUser,
  MessageInput as DiscordMessageInput,
  TranscriptEntry as DiscordTranscriptEntry,
};

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const botId = "1200000000000000001";
  const applicationId = botId;
  const token = `${Buffer.from(botId).toString("base64url")}.${randomBytes(4).toString("base64url")}.${randomBytes(27).toString("base64url")}`;
  const bot: FakeUser = { id: botId, username: "phonework-test", bot: true };
  const state = new DiscordState(bot, applicationId, options.now ?? Date.now);
  let origin = "";
  const gatewayUrl = () => `${origin.replace(/^http/, "ws")}/gateway`;
  const cdnUrl = (id: string, filename: string) =>
    `${origin}/cdn/attachments/${id}/${encodeURIComponent(filename)}`;
  const gateway = new FakeGateway({
    token,
    state,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    url: gatewayUrl,
    messageContentIntent: options.messageContentIntent ?? true,
  });
  const calls = new CallLog();
  const faults = new FaultQueue();
  const server = await listenDiscord({
    token,
    gateway,
    faults,
    calls,
    context: { state, gatewayUrl, cdnUrl, maxUploadBytes: options.maxUploadBytes ?? 10 * 1024 * 1024 },
  });
  origin = server.url;
  const injector = { state, gateway, cdnUrl };
  let guild: string | undefined;
  const transcript = (channelId: string) => state.messagesOf(channelId).map((m) => transcriptEntry(m, botId));

  return {
    url: server.url,
    apiUrl: `${server.url}/api`,
    token,
    bot,
    applicationId,
    user: (input = {}) => {
      const id = input.id ?? state.id();
      const user: FakeUser = { id, username: input.username ?? `user${id.slice(-4)}` };
      state.users.set(id, user);
      return user;
    },
    dm: (user) => state.dmOf(user),
    guildChannel: (name = "general") => {
      guild ??= state.id();
      const channel: FakeChannel = { id: state.id(), type: 0, guild_id: guild, name };
      state.channels.set(channel.id, channel);
      return channel;
    },
    closeDms: (user) => state.closedDms.add(user.id),
    sendMessage: (input) => injectMessage(injector, input),
    pressButton: (input) => pressButton(injector, input),
    slashCommand: (input) => slashCommand(injector, input),
    dispatch: (event, data) => gateway.dispatch(event, data),
    dropConnection: (drop = {}) => gateway.drop(drop.redeliver ?? 0),
    reconnect: () => gateway.reconnect(),
    invalidateSession: () => gateway.invalidate(),
    gateway: () => ({
      connected: gateway.connected,
      identifies: gateway.identifies,
      resumes: gateway.resumes,
      heartbeats: gateway.heartbeats,
    }),
    calls: calls.calls,
    callsOf: (method, path) => calls.of(method, path),
    waitForCall: (method, path, predicate, timeoutMs) => calls.waitFor(method, path, predicate, timeoutMs),
    failNext: (route, fault) => faults.add(route, fault),
    transcript,
    renderTranscript: (channelId) => renderTranscript(transcript(channelId)),
    message: (id) => state.messages.get(id),
    channel: (id) => state.channels.get(id),
    interaction: (id) => state.interactions.get(id),
    file: (id) => state.files.get(id)?.data,
    commands: () => state.commands,
    waitForBot: (channelId, pattern, timeoutMs = 10_000) =>
      waitFor(
        () =>
          transcript(channelId).find(
            (entry) => entry.from === "bot" && !entry.deleted && pattern.test(entry.content),
          ),
        {
          timeoutMs,
          intervalMs: 10,
          message: `a bot message matching ${pattern} (channel: ${renderTranscript(transcript(channelId))})`,
        },
      ),
    close: () => server.close(),
  };
}
