import { waitFor } from "@phonework/testkit";
import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { deferred, RecordingEvents, startFake, startPolling } from "./telegram-support.ts";

// The Telegram adapter receiving by long polling from the fake Bot API: what arrives, and that an
// update is confirmed to Telegram only after the shared layer stored it.

describe("Telegram adapter, long polling", () => {
  it("delivers text, a captioned document, a photo and a voice note as ChannelMessages", async () => {
    const fake = await startFake();
    const alice = fake.user({ first_name: "Alice", last_name: "Liddell", username: "alice" });
    const text = fake.injectText({ from: alice, text: "hello" });
    const doc = fake.injectDocument({
      from: alice,
      data: "a\nb\n",
      filename: "notes.txt",
      caption: "sum it",
    });
    const photo = fake.injectPhoto({ from: alice, data: Buffer.alloc(2048, 7), caption: "what is this?" });
    const voice = fake.injectVoice({ from: alice, data: Buffer.from("OggS-voice"), duration: 2 });
    const { adapter, events } = await startPolling(fake);

    const [first, second, third, fourth] = await events.messageCount(4);
    const channel = { id: String(alice.id), type: "private" };
    const sender = { id: String(alice.id), name: "Alice Liddell", isBot: false };
    expect(first).toEqual({
      id: "1",
      channel,
      sender,
      text: "hello",
      attachments: [],
      isMention: true,
      dedupeKeys: [`update:${text.update_id}`],
    });
    const document = doc.message?.document;
    expect(second).toMatchObject({
      id: "2",
      text: "sum it",
      attachments: [{ name: "notes.txt", mimeType: "text/plain", size: 4, ref: document?.file_id }],
      dedupeKeys: [`update:${doc.update_id}`],
    });
    const size = photo.message?.photo?.at(-1);
    expect(third).toMatchObject({
      id: "3",
      text: "what is this?",
      attachments: [
        {
          name: `photo-${size?.file_unique_id}.jpg`,
          mimeType: "image/jpeg",
          size: 2048,
          ref: size?.file_id,
        },
      ],
    });
    // A voice note is an audio file, fetched like any other (transcribing it is the router's, later).
    const note = voice.message?.voice;
    expect(fourth).toMatchObject({
      id: "4",
      text: "",
      attachments: [
        { name: `voice-${note?.file_unique_id}.ogg`, mimeType: "audio/ogg", size: 10, ref: note?.file_id },
      ],
    });
    expect(fourth?.unsupported).toBeUndefined();
    const [audio] = fourth?.attachments ?? [];
    expect(audio && (await adapter.download?.(audio))?.toString()).toBe("OggS-voice");
    await fake.waitForAcknowledged(voice.update_id);
  });

  it("confirms an update only after events.message resolved; a rejected one comes again", async () => {
    const fake = await startFake();
    const bob = fake.user();
    const update = fake.injectText({ from: bob, text: "store me" });
    const firstTry = deferred();
    const events = new RecordingEvents();
    events.onMessage = () => firstTry.promise;
    const { adapter } = await startPolling(fake, events);

    await events.messageCount(1);
    expect(fake.isAcknowledged(update.update_id)).toBe(false);
    // While the handler is pending, no further getUpdates goes out: nothing can confirm the update.
    expect(fake.callsOf("getUpdates").filter((call) => call.status === undefined)).toEqual([]);
    events.onMessage = async () => {};
    firstTry.reject(new Error("database is locked"));

    const [again, redelivered] = await events.messageCount(2);
    expect(redelivered).toEqual(again);
    expect(redelivered?.dedupeKeys).toEqual([`update:${update.update_id}`]);
    await fake.waitForAcknowledged(update.update_id);
    expect(adapter.status?.()).toMatchObject({ lastUpdateId: update.update_id, polling: true });
  });

  it("after a restart, unconfirmed updates come again and confirmed ones do not", async () => {
    const fake = await startFake();
    const carol = fake.user();
    const stored = fake.injectText({ from: carol, text: "one" });
    const pending = fake.injectText({ from: carol, text: "two" });
    const events = new RecordingEvents();
    events.onMessage = (message) => (message.text === "two" ? new Promise(() => {}) : Promise.resolve());
    const first = await startPolling(fake, events);
    await first.events.messageWithText("two");
    // Stopping does not wait for the shared layer; it confirms what was stored, and only that.
    await first.adapter.stop();
    expect(fake.isAcknowledged(stored.update_id)).toBe(true);
    expect(fake.isAcknowledged(pending.update_id)).toBe(false);

    const second = await startPolling(fake);
    const again = await second.events.messageWithText("two");
    expect(again.dedupeKeys).toEqual([`update:${pending.update_id}`]);
    await fake.waitForAcknowledged(pending.update_id);
    expect(second.events.messages.map((m) => m.text)).toEqual(["two"]);
  });

  it("in groups, isMention only when addressed; the bot's name is cut from the text", async () => {
    const fake = await startFake();
    const dana = fake.user({ username: "dana" });
    const team = fake.group({ title: "Team", supergroup: true });
    const { adapter, events } = await startPolling(fake);
    const botMessage = await adapter.send({ chatId: String(team.id), userId: String(dana.id) }, "I am here", {
      idempotencyKey: "k1",
    });
    fake.injectText({ from: dana, chat: team, text: "lunch anyone?" });
    fake.injectText({ from: dana, chat: team, text: "status please", mentionBot: true });
    fake.injectText({ from: dana, chat: team, text: "/nodes@phonework_test_bot all" });
    fake.injectText({ from: dana, chat: team, text: "/nodes@other_bot" });
    fake.injectText({ from: dana, chat: team, text: "and you?", replyTo: Number(botMessage.messageId) });
    fake.injectText({ from: dana, chat: team, text: "hey @phonework_test_bot look" });

    const messages = await events.messageCount(6);
    expect(messages.map((m) => [m.text, m.isMention, m.channel.type])).toEqual([
      ["lunch anyone?", false, "group"],
      ["status please", true, "group"],
      ["/nodes all", true, "group"],
      ["/nodes@other_bot", false, "group"],
      ["and you?", true, "group"],
      ["hey @phonework_test_bot look", true, "group"],
    ]);
    expect(messages[4]?.replyTo).toBe(botMessage.messageId);
    expect(messages[0]?.channel.id).toBe(String(team.id));
  });

  it("ignores bots' messages, service messages and malformed updates, and keeps polling", async () => {
    const fake = await startFake();
    const erin = fake.user();
    const chat = fake.privateChat(erin);
    const robot = { ...fake.user({ first_name: "Robot" }), is_bot: true };
    fake.injectText({ from: robot, text: "beep" });
    const base = { date: 1_700_000_000, chat, from: erin };
    fake.injectUpdate({ message: { ...base, message_id: 50, new_chat_title: "x" } as Update["message"] });
    fake.injectUpdate({
      message: { message_id: "not a number", chat: "nope" } as unknown as Update["message"],
    });
    fake.injectUpdate({
      message: { ...base, message_id: 51, sticker: { file_id: "s" } } as Update["message"],
    });
    const last = fake.injectText({ from: erin, text: "real" });
    const { adapter, events, logs } = await startPolling(fake);

    await fake.waitForAcknowledged(last.update_id);
    expect(events.messages.map((m) => [m.text, m.unsupported])).toEqual([
      ["", "sticker"],
      ["real", undefined],
    ]);
    expect(adapter.status?.()).toMatchObject({ polling: true });
    const reasons = logs()
      .filter((line) => line.msg === "Telegram update ignored")
      .map((line) => line.reason);
    expect(reasons).toEqual(["message from a bot", "service message", "malformed message"]);
  });

  it("a button press is answered with events.button's text, or an apology when it fails", async () => {
    const fake = await startFake();
    const frank = fake.user();
    const chat = fake.privateChat(frank);
    const { adapter, events } = await startPolling(fake);
    const to = { userId: String(frank.id) };
    const buttons = [
      [
        { label: "Approve", data: "approve:7" },
        { label: "Deny", data: "deny:7" },
      ],
    ];
    const question = await adapter.send(to, "Run <code>rm</code>?", { buttons, idempotencyKey: "q" });
    events.onButton = async (press) => `Chose ${press.data}`;

    const press = fake.pressButton({
      from: frank,
      chat,
      messageId: Number(question.messageId),
      data: "approve:7",
    });
    await fake.waitForCall("answerCallbackQuery");
    expect(events.presses).toEqual([
      {
        channel: { id: String(chat.id), type: "private" },
        sender: { id: String(frank.id), name: frank.first_name, isBot: false },
        data: "approve:7",
        messageId: question.messageId,
      },
    ]);
    expect(fake.callbackAnswers()).toMatchObject([
      { callback_query_id: press.callback_query?.id, text: "Chose approve:7" },
    ]);
    await fake.waitForAcknowledged(press.update_id);

    events.onButton = () => Promise.reject(new Error("ledger unavailable"));
    const failed = fake.pressButton({
      from: frank,
      chat,
      messageId: Number(question.messageId),
      data: "deny:7",
    });
    await fake.waitForAcknowledged(failed.update_id);
    expect(fake.callbackAnswers()[1]).toMatchObject({
      callback_query_id: failed.callback_query?.id,
      text: "Something went wrong. Please try again.",
    });
  });

  it("stop() aborts the held long poll at once", async () => {
    const fake = await startFake({ maxPollMs: 20_000 });
    const { adapter } = await startPolling(fake);
    await waitFor(() => fake.callsOf("getUpdates").some((call) => call.status === undefined), {
      intervalMs: 5,
      message: "a held getUpdates",
    });
    const started = Date.now();
    await adapter.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(adapter.status?.()).toEqual({
      platform: "telegram",
      name: "telegram",
      mode: "polling",
      polling: false,
      lastUpdateId: null,
    });
    // Sending still works after stop.
    const grace = fake.user();
    fake.privateChat(grace);
    await adapter.send({ userId: String(grace.id) }, "still here", { idempotencyKey: "after" });
    expect(fake.renderTranscript(grace.id)).toBe("#1 bot: still here");
  });

  it("starts by removing any webhook (Telegram refuses getUpdates while one is set)", async () => {
    const fake = await startFake();
    await fetch(
      `${fake.url}/bot${fake.token}/setWebhook?url=${encodeURIComponent("https://example.org/hook")}`,
    );
    const { events } = await startPolling(fake);
    const update = fake.injectText({ from: fake.user(), text: "after the webhook" });
    await events.messageWithText("after the webhook");
    await fake.waitForAcknowledged(update.update_id);
    expect(fake.webhook()).toBeUndefined();
    expect(fake.callsOf("getUpdates")[0]?.params).toMatchObject({
      allowed_updates: ["message", "callback_query"],
      timeout: 30,
    });
  });
});
