import { createTestLogger, type FakeSlack, startFakeSlack, waitFor } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASIC_DIALECTS, renderForPlatform } from "../src/chat/render/render-for-platform.ts";
import { type PlatformAdapter, PlatformError } from "../src/platforms/platform-adapter.ts";
import { createSlackAdapter, SLACK_CAPABILITIES } from "../src/platforms/slack/slack-adapter.ts";
import { deferred, RecordingEvents, rejection } from "./telegram-support.ts";

// The Slack adapter on its own against the fake workspace over real sockets: the real
// @slack/socket-mode and @slack/web-api, a recording PlatformEvents standing in for the shared layer.
// One fake and one adapter for the file; each test uses its own users.

let fake: FakeSlack;
let adapter: PlatformAdapter;
const events = new RecordingEvents();
const { logger } = createTestLogger("warn");

beforeAll(async () => {
  fake = await startFakeSlack({ ackTimeoutMs: 300 });
  adapter = createSlackAdapter({
    name: "slack",
    botToken: fake.botToken,
    apiUrl: fake.apiUrl,
    mode: { kind: "socket", appToken: fake.appToken },
    logger,
  });
  await adapter.start(events);
});

afterAll(async () => {
  await adapter.stop();
  await fake.close();
});

const byEvent = (eventId: string) =>
  events.messages.filter((m) => m.dedupeKeys?.includes(`event:${eventId}`));

describe("Slack adapter, receiving over Socket Mode", () => {
  it("a DM arrives once as a private message; its envelope is acknowledged only after it was stored", async () => {
    const ann = fake.user({ name: "ann" });
    const storing = deferred();
    events.onMessage = () => storing.promise;
    const sent = fake.sendMessage({ user: ann.id, text: "hello &lt;there&gt; <@U0BOT0001>" });
    await waitFor(() => byEvent(sent.eventId).length === 1, { message: "the DM" });
    expect(fake.isAcked(sent.envelopeId)).toBe(false);
    storing.resolve();
    await fake.waitForAck(sent.envelopeId);
    events.onMessage = async () => {};
    expect(byEvent(sent.eventId)).toEqual([
      {
        id: sent.ts,
        channel: { id: fake.dm(ann), type: "private" },
        sender: { id: ann.id, isBot: false },
        text: "hello <there>",
        attachments: [],
        isMention: true,
        dedupeKeys: [`event:${sent.eventId}`],
      },
    ]);
    expect(fake.envelopes().filter((e) => e.eventId === sent.eventId)).toHaveLength(1);
  });

  it("not stored: left unacknowledged, so Slack sends it again (retry_attempt 1, same event_id), then acknowledged", async () => {
    const bob = fake.user({ name: "bob" });
    let attempts = 0;
    events.onMessage = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error("disk full");
    };
    const sent = fake.sendMessage({ user: bob.id, text: "again" });
    await waitFor(() => byEvent(sent.eventId).length === 2, { message: "the redelivery" });
    events.onMessage = async () => {};
    const copies = () => fake.envelopes().filter((e) => e.eventId === sent.eventId);
    // The ack goes out once the copy is stored, a moment after the adapter handed it over.
    await waitFor(() => copies().some((e) => e.retryAttempt === 1 && e.ackedAt !== undefined), {
      message: "the redelivery acknowledged",
    });
    const envelopes = copies();
    expect(envelopes.map((e) => [e.retryAttempt, e.ackedAt !== undefined])).toEqual([
      [0, false],
      [1, true],
    ]);
    // Both copies carry the event id the intake recognises a redelivery by.
    expect(byEvent(sent.eventId).map((m) => m.id)).toEqual([sent.ts, sent.ts]);
  });

  it("ignores the bot's own messages and edits; a channel @mention arrives without the mention, threaded", async () => {
    const cat = fake.user({ name: "cat" });
    const channel = fake.channel();
    const own = fake.sendMessage({ user: fake.botUserId, channel, text: "my own" });
    const edit = fake.sendMessage({ user: cat.id, channel, text: "edited", subtype: "message_changed" });
    const root = fake.sendMessage({ user: cat.id, channel, text: "root" });
    const mention = fake.sendMessage({
      user: cat.id,
      channel,
      text: "<@U0BOT0001> /status please",
      threadTs: root.ts,
      mention: true,
    });
    await fake.waitForAck(mention.envelopeId);
    await fake.waitForAck(own.envelopeId);
    await fake.waitForAck(edit.envelopeId);
    expect(byEvent(own.eventId)).toEqual([]);
    expect(byEvent(edit.eventId)).toEqual([]);
    expect(byEvent(root.eventId)[0]?.isMention).toBe(false);
    expect(byEvent(mention.eventId)[0]).toMatchObject({
      id: `${root.ts}/${mention.ts}`,
      channel: { id: channel, type: "group" },
      text: "/status please",
      isMention: true,
      replyTo: root.ts,
    });
  });

  it("/pw approve 12 and a same-named /approve both arrive as the text /approve 12", async () => {
    const dan = fake.user({ name: "dan" });
    const pw = fake.sendSlashCommand({
      user: dan.id,
      channel: fake.dm(dan),
      command: "/pw",
      text: "approve 12",
    });
    const own = fake.sendSlashCommand({
      user: dan.id,
      channel: fake.dm(dan),
      command: "/approve",
      text: "12",
    });
    await fake.waitForAck(pw.envelopeId);
    await fake.waitForAck(own.envelopeId);
    const texts = events.messages.filter((m) => m.sender.id === dan.id);
    expect(texts.map((m) => [m.text, m.channel.type, m.isMention])).toEqual([
      ["/approve 12", "private", true],
      ["/approve 12", "private", true],
    ]);
  });

  it("a button press is acknowledged at once, handed on with its value, and its short answer shown ephemerally", async () => {
    const eve = fake.user({ name: "eve" });
    const { messageId } = await adapter.send({ userId: eve.id }, "Approve *rm*?", {
      buttons: [[{ label: "Approve", data: "b:approve:12" }]],
      idempotencyKey: "k1",
    });
    const posted = fake.botMessages(fake.dm(eve))[0];
    expect(posted?.blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: "Approve *rm*?" } },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            action_id: "pw-0-0",
            text: { type: "plain_text", text: "Approve", emoji: true },
            value: "b:approve:12",
          },
        ],
      },
    ]);
    const answered = deferred<string>();
    events.onButton = () => answered.promise;
    const press = fake.pressButton({
      user: eve.id,
      channel: fake.dm(eve),
      messageTs: messageId,
      value: "b:approve:12",
    });
    await fake.waitForAck(press.envelopeId);
    answered.resolve("Approved");
    await waitFor(() => fake.ephemerals().find((note) => note.user === eve.id), { message: "the ephemeral" });
    expect(events.presses.at(-1)).toEqual({
      channel: { id: fake.dm(eve), type: "private" },
      sender: { id: eve.id, name: eve.id.toLowerCase(), isBot: false },
      data: "b:approve:12",
      messageId,
    });
    expect(fake.ephemerals().filter((note) => note.user === eve.id)).toEqual([
      { channel: fake.dm(eve), user: eve.id, text: "Approved" },
    ]);
    // An edit without buttons takes them off.
    await adapter.edit({ userId: eve.id, chatId: fake.dm(eve) }, messageId, "Approved ✅");
    expect(fake.botMessages(fake.dm(eve))[0]).toMatchObject({ text: "Approved ✅", edits: 1 });
    expect(fake.botMessages(fake.dm(eve))[0]?.blocks).toBeUndefined();
  });
});

describe("Slack adapter, sending", () => {
  it("thread goes to the main message's thread_ts; a reply to a threaded message stays in its thread", async () => {
    const fay = fake.user({ name: "fay" });
    const to = { userId: fay.id };
    const main = await adapter.send(to, "main", { idempotencyKey: "m" });
    const detail = await adapter.send(to, "detail", { thread: main.messageId, idempotencyKey: "d" });
    expect(detail.messageId).toBe(`${main.messageId}/${detail.messageId.split("/")[1]}`);
    await adapter.send(to, "more detail", { thread: detail.messageId, idempotencyKey: "d2" });
    await adapter.send(to, "answer", { replyTo: `${main.messageId}/1700000000.000001`, idempotencyKey: "r" });
    await adapter.send(to, "top", { replyTo: main.messageId, idempotencyKey: "t" });
    expect(fake.botMessages(fake.dm(fay)).map((m) => [m.text, m.threadTs])).toEqual([
      ["main", undefined],
      ["detail", main.messageId],
      ["more detail", main.messageId],
      ["answer", main.messageId],
      ["top", undefined],
    ]);
    expect(fake.callsOf("conversations.open").filter((c) => c.params.users === fay.id)).toHaveLength(1);
  });

  it("a long answer is split into pieces within the limit, each sent in order", async () => {
    const gus = fake.user({ name: "gus" });
    const markdown = Array.from({ length: 40 }, (_, i) =>
      `Paragraph ${i} with **bold** & <angle> text. `.repeat(6),
    ).join("\n\n");
    const pieces = renderForPlatform(markdown, SLACK_CAPABILITIES, BASIC_DIALECTS);
    expect(pieces.length).toBeGreaterThan(3);
    for (const [i, piece] of pieces.entries())
      await adapter.send({ userId: gus.id }, piece, { idempotencyKey: `p${i}` });
    const sent = fake.botMessages(fake.dm(gus));
    expect(sent.map((m) => m.text)).toEqual(pieces);
    for (const m of sent) expect(m.text.length).toBeLessThanOrEqual(SLACK_CAPABILITIES.maxMessageLength);
    expect(sent[0]?.text).toMatch(/^\[1\/\d+\]\nParagraph 0 with \*bold\* &amp; &lt;angle&gt; text\./);
  });

  it("a file out goes up through getUploadURLExternal, the upload URL and completeUploadExternal; a file in is downloaded with the token", async () => {
    const hal = fake.user({ name: "hal" });
    const data = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
    await adapter.sendFile({ userId: hal.id }, { name: "bytes.bin", data }, { idempotencyKey: "f" });
    expect(fake.uploads().find((f) => f.name === "bytes.bin")).toMatchObject({ data, channel: fake.dm(hal) });
    expect(fake.calls().map((c) => c.method)).not.toContain("files.upload");
    expect(fake.botMessages(fake.dm(hal)).at(-1)?.files).toEqual([
      expect.objectContaining({ name: "bytes.bin", size: 8 }),
    ]);

    const shared = fake.shareFile({
      name: "../../etc/notes.txt",
      data: Buffer.from("line one\n"),
      mimetype: "text/plain",
    });
    const sent = fake.sendMessage({ user: hal.id, text: "", subtype: "file_share", files: [shared] });
    await fake.waitForAck(sent.envelopeId);
    const [attachment] = byEvent(sent.eventId)[0]?.attachments ?? [];
    expect(attachment).toMatchObject({ name: "notes.txt", mimeType: "text/plain", size: 9 });
    expect(String(await adapter.download?.(attachment ?? { name: "", ref: "" }))).toBe("line one\n");
    // The token goes to Slack's hosts only, never to a URL a payload names.
    const stolen = await rejection(
      adapter.download?.({ name: "x", ref: "https://attacker.example/f" }) ?? Promise.resolve(),
    );
    expect(stolen).toMatchObject({
      kind: "permanent",
      message: expect.stringMatching(/not on Slack's hosts/),
    });
  });

  it("a 429 is rate_limited with Retry-After (not waited out by the SDK); Slack's error codes map to permanent or transient", async () => {
    const ivy = fake.user({ name: "ivy" });
    const to = { userId: ivy.id };
    await adapter.send(to, "open the DM", { idempotencyKey: "o" });
    fake.failNext("chat.postMessage", { status: 429, retryAfter: 7 });
    const started = Date.now();
    const limited = await rejection(adapter.send(to, "x", { idempotencyKey: "x" }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(limited).toBeInstanceOf(PlatformError);
    expect(limited).toMatchObject({ kind: "rate_limited", details: { retryAfterMs: 7_000, status: 429 } });
    fake.failNext("chat.postMessage", { status: 503 });
    expect(await rejection(adapter.send(to, "x", { idempotencyKey: "y" }))).toMatchObject({
      kind: "transient",
    });
    for (const error of ["channel_not_found", "not_in_channel", "invalid_auth"]) {
      fake.failNext("chat.postMessage", { error });
      expect(await rejection(adapter.send(to, "x", { idempotencyKey: error }))).toMatchObject({
        kind: "permanent",
        details: { code: error },
      });
    }
    expect(adapter.status?.()).toMatchObject({ platform: "slack", mode: "socket", socket: "connected" });
  });
});

describe("Slack adapter, starting", () => {
  it("a refused app token fails the start at once, saying which token; a refused bot token too", async () => {
    const events = new RecordingEvents();
    const start = (botToken: string, appToken: string) => {
      const other = createSlackAdapter({
        name: "slack-other",
        botToken,
        apiUrl: fake.apiUrl,
        mode: { kind: "socket", appToken },
        logger,
      });
      return rejection(other.start(events).finally(() => other.stop()));
    };
    expect(await start(fake.botToken, "xapp-1-wrong")).toMatchObject({
      kind: "permanent",
      message: "apps.connections.open with the app-level token: invalid_auth",
    });
    expect(await start("xoxb-1-2-wrong", fake.appToken)).toMatchObject({
      kind: "permanent",
      message: "auth.test: invalid_auth",
    });
  });
});
