import { randomBytes } from "node:crypto";
import type { Chat, User, UserFromGetMe } from "grammy/types";
import { waitFor } from "../shared/wait-for.ts";
import { type ApiDeps, listenBotApi, runCall } from "./api-server.ts";
import { CallLog } from "./calls.ts";
import { FaultQueue } from "./faults.ts";
import {
  injectDocument,
  injectPhoto,
  injectText,
  injectVoice,
  pressButton,
  privateChatOf,
} from "./inject.ts";
import { createState } from "./state/state.ts";
import { renderTranscript, transcriptEntry } from "./transcript.ts";
import type { FakeTelegram, FakeTelegramOptions } from "./types.ts";

// A fake Telegram Bot API server for one bot, which the real grammY talks to through
// `client.apiRoot`: long polling and webhooks, messages with edits and inline keyboards, callback
// queries, files both ways, command lists, recorded calls and scripted failures.

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const botId = options.botId ?? 7_000_000_001;
  const token = options.token ?? `${botId}:AA${randomBytes(24).toString("base64url").slice(0, 33)}`;
  const bot: UserFromGetMe = {
    id: botId,
    is_bot: true,
    first_name: options.firstName ?? "PhoneWork Test",
    username: options.username ?? "phonework_test_bot",
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
    can_manage_bots: false,
    supports_join_request_queries: false,
  };
  const now = options.now ?? Date.now;
  const closing = new AbortController();
  const deps: ApiDeps = {
    calls: new CallLog(),
    faults: new FaultQueue(),
    state: createState({
      token,
      bot,
      now,
      maxPollMs: options.maxPollMs ?? 2_000,
      firstUpdateId: options.firstUpdateId ?? 100_000_001,
      webhook: {
        retryMs: options.webhookRetryMs ?? 100,
        timeoutMs: options.webhookTimeoutMs ?? 5_000,
        now,
        onReply: async ({ method, ...params }) => {
          await runCall(deps, String(method), params, closing.signal, "webhook-reply");
        },
      },
    }),
  };
  const { state, calls } = deps;
  const server = await listenBotApi(deps);
  let nextUserId = 100_000_001;
  let nextGroup = 1;

  return {
    url: server.url,
    token,
    bot,
    calls: calls.calls,
    callsOf: (method) => calls.of(method),
    waitForCall: (method, predicate, timeoutMs) => calls.waitFor(method, predicate, timeoutMs),

    user: (input = {}) => {
      const id = input.id ?? nextUserId++;
      return { is_bot: false, first_name: input.first_name ?? `User ${id}`, ...input, id } satisfies User;
    },
    privateChat: (user) => state.chats.add(privateChatOf(user)) as Chat.PrivateChat,
    group: (input = {}) => {
      const n = nextGroup++;
      const title = input.title ?? `Group ${n}`;
      const username = input.username ? { username: input.username } : {};
      const chat: Chat = input.supergroup
        ? { id: input.id ?? -1_001_000_000_000 - n, type: "supergroup", title, ...username }
        : { id: input.id ?? -4_000_000_000 - n, type: "group", title };
      return state.chats.add(chat);
    },

    injectText: (input) => injectText(state, input),
    injectDocument: (input) => injectDocument(state, input),
    injectPhoto: (input) => injectPhoto(state, input),
    injectVoice: (input) => injectVoice(state, input),
    pressButton: (input) => pressButton(state, input),
    injectUpdate: (body) => state.updates.push(body),

    pendingUpdates: () => state.updates.pending(),
    acknowledgements: () => [...state.updates.acknowledgements],
    acknowledgedOffset: () => state.updates.acknowledgedOffset(),
    isAcknowledged: (updateId) => state.updates.isAcknowledged(updateId),
    waitForAcknowledged: async (updateId, timeoutMs = 5_000) => {
      await waitFor(() => state.updates.isAcknowledged(updateId), {
        timeoutMs,
        intervalMs: 5,
        message: `update ${updateId} to be acknowledged`,
      });
    },

    webhook: () => state.webhook.config,
    webhookAttempts: () => [...state.webhook.attempts],
    waitForWebhookAttempt: (predicate = () => true, timeoutMs = 5_000) =>
      waitFor(() => state.webhook.attempts.find(predicate), {
        timeoutMs,
        intervalMs: 5,
        message: "a webhook delivery attempt",
      }),

    transcript: (chatId) => state.chats.messages(chatId).map(transcriptEntry),
    renderTranscript: (chatId) => renderTranscript(state.chats.messages(chatId).map(transcriptEntry)),
    message: (chatId, messageId) => state.chats.find(chatId, messageId)?.message,
    sentFiles: () => [...state.sentFiles],
    file: (fileId) => state.files.get(fileId),
    callbackAnswers: () => [...state.callbacks.answers],
    commands: (scope, languageCode) => state.commands.get(scope, languageCode),
    reactions: (chatId, messageId) => state.reactions.get(chatId, messageId),

    failNext: (method, fault) => deps.faults.add(method, fault),
    close: async () => {
      closing.abort();
      state.webhook.close();
      await server.close();
    },
  };
}
