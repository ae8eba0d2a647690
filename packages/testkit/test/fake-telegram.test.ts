import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { autoRetry } from "@grammyjs/auto-retry";
import { Bot, GrammyError, HttpError, InlineKeyboard, InputFile, webhookCallback } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { CleanupScope, type FakeTelegramOptions, startFakeTelegram, waitFor } from "../src/index.ts";

// The fake must be a faithful Bot API: the real grammY polls, receives webhooks, sends, edits and
// uploads against it, unmodified but for `client.apiRoot`.

const scope = new CleanupScope();
afterEach(() => scope.run());

async function setup(options: FakeTelegramOptions = {}) {
  const fake = await startFakeTelegram(options);
  scope.add(() => fake.close());
  const bot = new Bot(fake.token, { client: { apiRoot: fake.url } });
  const errors: unknown[] = [];
  bot.catch((error) => {
    errors.push(error.error);
  });
  scope.add(() => expect(errors).toEqual([]));
  return { fake, bot };
}

/** Long polling until cleanup, which stops the bot (before the fake closes) and waits for its loop. */
function poll(bot: Bot): Promise<void> {
  const running = bot.start({ timeout: 30 });
  scope.add(async () => {
    if (bot.isRunning()) await bot.stop();
    await running.catch(() => {});
  });
  return running;
}

const rejection = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("fake Telegram Bot API with grammY", () => {
  it("answers getMe for the bot's token, 401 for any other, 404 for an unknown method", async () => {
    const { fake, bot } = await setup();
    await bot.init();
    expect(bot.botInfo).toEqual(fake.bot);
    const stranger = new Bot("123456:wrong", { client: { apiRoot: fake.url } });
    const denied = await rejection(stranger.api.getMe());
    expect(denied).toBeInstanceOf(GrammyError);
    expect(denied).toMatchObject({ error_code: 401, description: "Unauthorized" });
    const unknown = await fetch(`${fake.url}/bot${fake.token}/getNothing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ ok: false, error_code: 404, description: "Not Found" });
    // Method names are case-insensitive and parameters may come in the query string.
    const viaQuery = await fetch(`${fake.url}/bot${fake.token}/getmycommands?language_code=en`);
    expect(await viaQuery.json()).toEqual({ ok: true, result: [] });
  });

  it("long polling: replies in private and to a group mention, acknowledging only after handling", async () => {
    const { fake, bot } = await setup({ maxPollMs: 10_000 });
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    const team = fake.group({ title: "Team" });
    const acknowledgedWhileHandling: boolean[] = [];
    bot.on("message:text", async (ctx) => {
      acknowledgedWhileHandling.push(fake.isAcknowledged(ctx.update.update_id));
      const mentioned = ctx.entities("mention").some((entity) => entity.text === `@${ctx.me.username}`);
      if (ctx.chat.type !== "private" && !mentioned) return;
      await ctx.reply(`echo: ${ctx.msg.text}`, { reply_parameters: { message_id: ctx.msg.message_id } });
    });
    fake.injectText({ from: alice, text: "hello" });
    fake.injectText({ from: alice, chat: team, text: "not for the bot" });
    const mention = fake.injectText({ from: alice, chat: team, text: "status?", mentionBot: true });
    expect(mention.message?.entities).toEqual([{ type: "mention", offset: 0, length: 19 }]);
    poll(bot);

    await fake.waitForAcknowledged(mention.update_id);
    expect(acknowledgedWhileHandling).toEqual([false, false, false]);
    expect(fake.pendingUpdates()).toEqual([]);
    expect(fake.acknowledgedOffset()).toBe(mention.update_id + 1);
    const acknowledging = fake.callsOf("getUpdates").find((c) => c.params.offset === mention.update_id + 1);
    expect(acknowledging?.params).toMatchObject({ timeout: 30 });
    expect(fake.renderTranscript(alice.id)).toBe("#1 @alice: hello\n#2 bot (reply to #1): echo: hello");
    expect(fake.renderTranscript(team.id)).toBe(
      [
        "#1 @alice: not for the bot",
        "#2 @alice: @phonework_test_bot status?",
        "#3 bot (reply to #2): echo: @phonework_test_bot status?",
      ].join("\n"),
    );

    // The held long poll wakes up for a new update instead of waiting out its timeout.
    const started = Date.now();
    const later = fake.injectText({ from: alice, text: "again" });
    await fake.waitForCall("sendMessage", (call) => call.params.text === "echo: again");
    expect(Date.now() - started).toBeLessThan(1_000);
    await fake.waitForAcknowledged(later.update_id);
  });

  it("getUpdates: offset confirms, a newer poll terminates a held one, allowed_updates filters", async () => {
    const { fake, bot } = await setup();
    const erin = fake.user();
    const first = fake.injectText({ from: erin, text: "one" });
    const second = fake.injectText({ from: erin, text: "two" });
    expect((await bot.api.getUpdates()).map((u) => u.update_id)).toEqual([first.update_id, second.update_id]);
    expect(fake.isAcknowledged(first.update_id)).toBe(false);
    expect(await bot.api.getUpdates({ offset: second.update_id })).toEqual([second]);
    expect([fake.isAcknowledged(first.update_id), fake.isAcknowledged(second.update_id)]).toEqual([
      true,
      false,
    ]);

    const held = rejection(bot.api.getUpdates({ offset: second.update_id + 1, timeout: 10 }));
    await waitFor(() => fake.callsOf("getUpdates").length === 3, { message: "the held getUpdates" });
    expect(await bot.api.getUpdates({ offset: second.update_id + 1 })).toEqual([]);
    expect(await held).toMatchObject({
      error_code: 409,
      description:
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    });

    fake.injectText({ from: erin, text: "dropped" });
    const press = fake.injectUpdate({
      callback_query: { id: "1", from: erin, chat_instance: "1", data: "x" },
    });
    expect(await bot.api.getUpdates({ allowed_updates: ["callback_query"] })).toEqual([press]);
    expect(fake.pendingUpdates()).toEqual([press]);
  });

  it("delivers a button press; the first answer is taken, a second refused", async () => {
    const { fake, bot } = await setup();
    const bob = fake.user({ first_name: "Bob" });
    const chat = fake.privateChat(bob);
    const keyboard = new InlineKeyboard().text("Yes", "deploy:yes").text("No", "deploy:no");
    const question = await bot.api.sendMessage(chat.id, "Deploy?", { reply_markup: keyboard });
    expect(fake.renderTranscript(chat.id)).toBe("#1 bot: Deploy?\n   [Yes → deploy:yes] [No → deploy:no]");
    const secondAnswers: unknown[] = [];
    bot.on("callback_query:data", async (ctx) => {
      await ctx.answerCallbackQuery({ text: `chose ${ctx.callbackQuery.data}` });
      secondAnswers.push(await rejection(ctx.answerCallbackQuery()));
      await ctx.editMessageText(`Deploy? ${ctx.callbackQuery.data}`);
    });
    poll(bot);
    const press = fake.pressButton({ from: bob, chat, messageId: question.message_id, data: "deploy:yes" });
    expect(press.callback_query?.message?.message_id).toBe(question.message_id);

    await fake.waitForCall("editMessageText");
    expect(fake.callbackAnswers()).toMatchObject([
      { callback_query_id: press.callback_query?.id, text: "chose deploy:yes" },
    ]);
    expect(secondAnswers).toMatchObject([
      {
        error_code: 400,
        description: "Bad Request: query is too old and response timeout expired or query ID is invalid",
      },
    ]);
    // An edit without reply_markup removes the keyboard, as on the real server.
    expect(fake.renderTranscript(chat.id)).toBe("#1 bot (edited): Deploy? deploy:yes");
    expect(fake.transcript(chat.id)[0]?.history).toMatchObject([{ text: "Deploy?", reply_markup: keyboard }]);
    expect(() =>
      fake.pressButton({ from: bob, chat, messageId: question.message_id, data: "deploy:no" }),
    ).toThrow(/has no button "deploy:no"/);
  });

  it("sends and edits text with Telegram's refusals", async () => {
    const { fake, bot } = await setup();
    const chat = fake.privateChat(fake.user());
    const other = fake.privateChat(fake.user());
    const keyboard = new InlineKeyboard().text("Stop", "stop");
    const sent = await bot.api.sendMessage(chat.id, "<b>Build</b> running", {
      parse_mode: "HTML",
      reply_markup: keyboard,
    });
    expect(sent).toMatchObject({
      message_id: 1,
      chat: { id: chat.id, type: "private" },
      from: { id: fake.bot.id, is_bot: true },
      text: "Build running",
      entities: [{ type: "bold", offset: 0, length: 5 }],
      reply_markup: { inline_keyboard: [[{ text: "Stop", callback_data: "stop" }]] },
    });
    expect((await bot.api.sendMessage(chat.id, "second")).message_id).toBe(2);
    expect((await bot.api.sendMessage(other.id, "elsewhere")).message_id).toBe(1);

    const edit = () =>
      bot.api.editMessageText(chat.id, sent.message_id, "<b>Build</b> done", {
        parse_mode: "HTML",
        reply_markup: keyboard,
      });
    const edited = await edit();
    expect(edited).toMatchObject({ text: "Build done", edit_date: expect.any(Number) });
    expect(await rejection(edit())).toMatchObject({
      error_code: 400,
      description: expect.stringMatching(/^Bad Request: message is not modified: /),
    });
    const refusals = [
      [bot.api.editMessageText(chat.id, 99, "x"), "Bad Request: message to edit not found"],
      [
        bot.api.sendMessage(chat.id, "<b>open", { parse_mode: "HTML" }),
        `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
      ],
      [
        bot.api.sendMessage(chat.id, "<foo>x</foo>", { parse_mode: "HTML" }),
        `Bad Request: can't parse entities: Unsupported start tag "foo" at byte offset 0`,
      ],
      [
        bot.api.sendMessage(chat.id, "v1.2", { parse_mode: "MarkdownV2" }),
        "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
      ],
      [bot.api.sendMessage(chat.id, "x".repeat(4097)), "Bad Request: message is too long"],
      [bot.api.sendMessage(chat.id, " "), "Bad Request: message text is empty"],
      [bot.api.sendMessage(-1, "hi"), "Bad Request: chat not found"],
      [
        bot.api.sendMessage(chat.id, "re", { reply_parameters: { message_id: 42 } }),
        "Bad Request: message to be replied not found",
      ],
    ] as const;
    for (const [call, description] of refusals) {
      expect(await rejection(call)).toMatchObject({ error_code: 400, description });
    }
    expect((await bot.api.sendMessage(chat.id, "x".repeat(4096))).text).toHaveLength(4096);
    expect(fake.transcript(chat.id).map((entry) => entry.text?.slice(0, 10))).toEqual([
      "Build done",
      "second",
      "xxxxxxxxxx",
    ]);
  });

  it("lets the bot download a document a user sent, through getFile and the file URL", async () => {
    const { fake, bot } = await setup();
    const carol = fake.user({ first_name: "Carol" });
    const bytes = Buffer.from("line one\nline two\n\u00e9\u0000");
    const received: Array<{ caption?: string; name?: string; bytes: Buffer }> = [];
    bot.on("message:document", async (ctx) => {
      const file = await ctx.getFile();
      const response = await fetch(`${fake.url}/file/bot${fake.token}/${file.file_path}`);
      received.push({
        caption: ctx.msg.caption,
        name: ctx.msg.document.file_name,
        bytes: Buffer.from(await response.arrayBuffer()),
      });
      await ctx.reply("got it");
    });
    const update = fake.injectDocument({
      from: carol,
      data: bytes,
      filename: "notes.txt",
      caption: "summarize",
    });
    expect(update.message?.document).toMatchObject({ file_name: "notes.txt", mime_type: "text/plain" });
    poll(bot);
    await fake.waitForCall("sendMessage");
    expect(received).toEqual([{ caption: "summarize", name: "notes.txt", bytes }]);
    expect(fake.callsOf("getFile")[0]?.result).toMatchObject({ file_path: "documents/file_0.txt" });
    expect(await rejection(bot.api.getFile("nope"))).toMatchObject({
      description: "Bad Request: invalid file_id",
    });
    expect((await fetch(`${fake.url}/file/bot${fake.token}/documents/missing.txt`)).status).toBe(404);
  });

  it("records documents and photos the bot uploads, byte for byte", async () => {
    const { fake, bot } = await setup();
    const chat = fake.privateChat(fake.user());
    const bytes = Buffer.from([0, 1, 2, 255, 13, 10, ...Buffer.from("--not-a-boundary\r\n"), 0xe2, 0x82]);
    const sent = await bot.api.sendDocument(chat.id, new InputFile(bytes, "report.bin"), {
      caption: "<i>weekly</i>",
      parse_mode: "HTML",
    });
    expect(sent).toMatchObject({
      document: { file_name: "report.bin", file_size: bytes.length, mime_type: "application/octet-stream" },
      caption: "weekly",
      caption_entities: [{ type: "italic", offset: 0, length: 6 }],
    });
    const png = Buffer.alloc(3000, 0x89);
    await bot.api.sendPhoto(chat.id, new InputFile(png, "chart.png"), { caption: "chart" });
    const resent = await bot.api.sendDocument(chat.id, sent.document?.file_id as string);
    expect(resent.document?.file_id).toBe(sent.document?.file_id);
    expect(fake.sentFiles()).toMatchObject([
      { method: "sendDocument", chat_id: chat.id, message_id: 1, filename: "report.bin", caption: "weekly" },
      { method: "sendPhoto", message_id: 2, filename: "chart.png", caption: "chart" },
      { method: "sendDocument", message_id: 3 },
    ]);
    expect(fake.sentFiles()[0]?.data.equals(bytes)).toBe(true);
    expect(fake.sentFiles()[1]?.data.equals(png)).toBe(true);
    expect(fake.callsOf("sendDocument")[0]?.params.document).toEqual({
      filename: "report.bin",
      contentType: "application/octet-stream",
      size: bytes.length,
    });
    expect(fake.renderTranscript(chat.id)).toBe(
      "#1 bot: [document report.bin] weekly\n#2 bot: [photo] chart\n#3 bot: [document report.bin] ",
    );
  });

  it("webhook mode: POSTs with the secret header, retries until 2xx, refuses getUpdates", async () => {
    const { fake, bot } = await setup({ webhookRetryMs: 20 });
    bot.on("message:text", (ctx) => ctx.reply(`hook: ${ctx.msg.text}`));
    const handle = webhookCallback(bot, "http", { secretToken: "right-secret" });
    const receiver = createServer((req, res) => {
      handle(req, res).catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    scope.add(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/telegram`;

    await bot.api.setWebhook(url, { secret_token: "wrong-secret" });
    const dave = fake.user({ username: "dave" });
    const update = fake.injectText({ from: dave, text: "ping" });
    await fake.waitForWebhookAttempt((attempt) => attempt.status === 401);
    expect(fake.isAcknowledged(update.update_id)).toBe(false);
    expect(await bot.api.getWebhookInfo()).toMatchObject({
      url,
      pending_update_count: 1,
      last_error_message: "Wrong response from the webhook: 401 Unauthorized",
    });
    expect(await rejection(bot.api.getUpdates())).toMatchObject({
      error_code: 409,
      description:
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    });

    await bot.api.setWebhook(url, { secret_token: "right-secret" });
    await fake.waitForAcknowledged(update.update_id);
    await fake.waitForCall("sendMessage");
    expect(fake.renderTranscript(dave.id)).toBe("#1 @dave: ping\n#2 bot: hook: ping");
    const statuses = fake.webhookAttempts().map((attempt) => attempt.status);
    expect(statuses.at(-1)).toBe(200);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
    expect(fake.acknowledgements().at(-1)).toMatchObject({ offset: update.update_id + 1, via: "webhook" });
    expect(await bot.api.getWebhookInfo()).toMatchObject({ url, pending_update_count: 0 });

    expect(await bot.api.deleteWebhook()).toBe(true);
    expect(fake.webhook()).toBeUndefined();
    expect(await bot.api.getUpdates()).toEqual([]);
  });

  it("webhook reply: runs the method carried in the webhook's answer", async () => {
    const { fake } = await setup();
    const bot = new Bot(fake.token, {
      client: { apiRoot: fake.url, canUseWebhookReply: (method) => method === "sendMessage" },
    });
    bot.on("message:text", (ctx) => ctx.reply(`quick: ${ctx.msg.text}`));
    const handle = webhookCallback(bot, "http");
    const receiver = createServer((req, res) => {
      handle(req, res).catch(() => res.writeHead(500).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    scope.add(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    await bot.api.setWebhook(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
    const frank = fake.user({ username: "frank" });
    fake.injectText({ from: frank, text: "hi" });
    const reply = await fake.waitForCall("sendMessage");
    expect(reply).toMatchObject({ via: "webhook-reply", status: 200, params: { chat_id: frank.id } });
    expect(fake.renderTranscript(frank.id)).toBe("#1 @frank: hi\n#2 bot: quick: hi");
  });

  it("scripted failures: 429 with retry_after (auto-retry waits it out), 5xx, a proxy page, a hang", async () => {
    const { fake, bot } = await setup();
    const chat = fake.privateChat(fake.user());
    fake.failNext("sendMessage", { status: 429, retryAfter: 7 });
    expect(await rejection(bot.api.sendMessage(chat.id, "x"))).toMatchObject({
      error_code: 429,
      description: "Too Many Requests: retry after 7",
      parameters: { retry_after: 7 },
    });
    fake.failNext("sendMessage", { status: 502 });
    expect(await rejection(bot.api.sendMessage(chat.id, "x"))).toMatchObject({
      error_code: 502,
      description: "Bad Gateway",
    });
    fake.failNext("sendMessage", { status: 502, body: "<html><h1>502 Bad Gateway</h1></html>" });
    expect(await rejection(bot.api.sendMessage(chat.id, "x"))).toBeInstanceOf(HttpError);

    const impatient = new Bot(fake.token, { client: { apiRoot: fake.url, timeoutSeconds: 0.2 } });
    fake.failNext("sendMessage", { delayMs: 2_000 });
    expect(await rejection(impatient.api.sendMessage(chat.id, "lost"))).toBeInstanceOf(HttpError);
    fake.failNext(/^getMe$/, { delayMs: 100, times: 2 });
    const slowStart = Date.now();
    await bot.api.getMe();
    await bot.api.getMe();
    expect(Date.now() - slowStart).toBeGreaterThanOrEqual(190);

    bot.api.config.use(autoRetry());
    fake.failNext("sendMessage", { status: 429, retryAfter: 1 });
    const started = Date.now();
    await bot.api.sendMessage(chat.id, "after the limit");
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.callsOf("sendMessage").map((call) => call.status)).toEqual([
      429,
      502,
      502,
      undefined,
      429,
      200,
    ]);
    expect(fake.renderTranscript(chat.id)).toBe("#1 bot: after the limit");
  });

  it("keeps command lists per scope and records setMyCommands", async () => {
    const { fake, bot } = await setup();
    const commands = [
      { command: "start", description: "Start" },
      { command: "status", description: "Show the status" },
    ];
    await bot.api.setMyCommands(commands);
    await bot.api.setMyCommands([{ command: "admin", description: "Admin" }], {
      scope: { type: "all_group_chats" },
    });
    expect(fake.callsOf("setMyCommands")[0]?.params).toEqual({ commands });
    expect(await bot.api.getMyCommands()).toEqual(commands);
    expect(fake.commands({ type: "all_group_chats" })).toEqual([{ command: "admin", description: "Admin" }]);
    expect(
      await rejection(bot.api.setMyCommands([{ command: "Bad Command", description: "x" }])),
    ).toMatchObject({
      description: "Bad Request: BOT_COMMAND_INVALID",
    });
    await bot.api.deleteMyCommands();
    expect(await bot.api.getMyCommands()).toEqual([]);
  });

  it("keeps the bot's reaction on a message; refuses emoji outside Telegram's list", async () => {
    const { fake, bot } = await setup();
    const chat = fake.privateChat(fake.user());
    const sent = await bot.api.sendMessage(chat.id, "done");
    expect(await bot.api.setMessageReaction(chat.id, sent.message_id, [{ type: "emoji", emoji: "👍" }])).toBe(
      true,
    );
    expect(fake.reactions(chat.id, sent.message_id)).toEqual([{ type: "emoji", emoji: "👍" }]);
    const refusals = [
      [bot.api.setMessageReaction(chat.id, 99, [{ type: "emoji", emoji: "👍" }]), "MESSAGE_ID_INVALID"],
      [
        bot.api.setMessageReaction(chat.id, sent.message_id, [{ type: "emoji", emoji: "✅" as "👍" }]),
        "REACTION_INVALID",
      ],
      [
        bot.api.setMessageReaction(chat.id, sent.message_id, [
          { type: "emoji", emoji: "👍" },
          { type: "emoji", emoji: "🔥" },
        ]),
        "REACTIONS_TOO_MANY",
      ],
    ] as const;
    for (const [call, detail] of refusals) {
      expect(await rejection(call)).toMatchObject({ error_code: 400, description: `Bad Request: ${detail}` });
    }
    await bot.api.setMessageReaction(chat.id, sent.message_id, []);
    expect(fake.reactions(chat.id, sent.message_id)).toEqual([]);
  });
});
