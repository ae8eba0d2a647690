import { CleanupScope, createTestLogger, type FakeDiscord, waitFor } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import { DEFAULT_RETRY } from "../src/chat/send-retry.ts";
import { DISCORD_CAPABILITIES } from "../src/platforms/discord/discord-adapter.ts";
import { type PlatformAdapter, PlatformError } from "../src/platforms/platform-adapter.ts";
import { discordAdapter, RecordingEvents, startAdapter, startFake } from "./discord-support.ts";

// The Discord adapter against the fake Discord over real sockets: the real @discordjs/ws on the
// fake gateway, the real @discordjs/rest on its REST API. One fake and one connected adapter for
// the file; each test has its own users and channels. The shared layer is a recording stand-in,
// or the real ChatHub where its splitting, size checks and retries are what is tested.

const scope = new CleanupScope();
afterAll(() => scope.run());
let fake: FakeDiscord;
let adapter: PlatformAdapter;
let events: RecordingEvents;
let hub: ChatHub;

beforeAll(async () => {
  fake = await startFake(scope);
  ({ adapter, events } = await startAdapter(scope, fake));
  hub = new ChatHub([adapter], {
    logger: createTestLogger().logger,
    buttons: ButtonStore.inMemory(60_000, Date.now),
    retry: { ...DEFAULT_RETRY, baseMs: 20 },
  });
  await hub.prepare();
});

const textOf = (text: string) => events.messageWithText(text);

describe("Discord adapter: receiving", () => {
  it("a DM arrives with its sender and channel; a replay after RESUME brings the same id again (the intake's dedupe key)", async () => {
    const alice = fake.user({ username: "alice" });
    const sent = fake.sendMessage({ from: alice, content: "hello over dm" });
    expect(await textOf("hello over dm")).toMatchObject({
      id: sent.id,
      channel: { id: sent.channel_id, type: "private" },
      sender: { id: alice.id, name: "alice", isBot: false },
      isMention: true,
      attachments: [],
    });
    // The connection drops; one message is sent while it is down, and the RESUME also replays the
    // last one already delivered: both arrive, the replayed one with its same message id.
    const before = fake.gateway().resumes;
    fake.dropConnection({ redeliver: 1 });
    const missed = fake.sendMessage({ from: alice, content: "sent while down" });
    await textOf("sent while down");
    expect(fake.gateway().resumes).toBe(before + 1);
    const ids = events.messages.filter((m) => m.sender.id === alice.id).map((m) => m.id);
    expect(ids.filter((id) => id === missed.id)).toHaveLength(1);
    expect(ids.filter((id) => id === sent.id)).toEqual([sent.id, sent.id]);
  });

  it("in a server channel only mentions count, the mention cut from the text; bots, webhooks and the bot itself are ignored", async () => {
    const bob = fake.user({ username: "bob" });
    const channel = fake.guildChannel("dev");
    fake.sendMessage({ from: bob, channel, content: "just chatting" });
    fake.sendMessage({ from: bob, channel, content: "/status please", mentionBot: true });
    fake.dispatch("MESSAGE_CREATE", {
      id: "1",
      channel_id: channel.id,
      guild_id: channel.guild_id,
      author: { id: "5", username: "other", bot: true },
      content: "from a bot",
    });
    fake.dispatch("MESSAGE_CREATE", { id: "2", channel_id: channel.id, author: fake.bot, content: "my own" });
    fake.dispatch("MESSAGE_CREATE", { id: "x", nonsense: true });
    const mentioned = await textOf("/status please");
    expect(mentioned).toMatchObject({ channel: { id: channel.id, type: "group" }, isMention: true });
    const chatting = await textOf("just chatting");
    expect(chatting.isMention).toBe(false);
    expect(events.messages.map((m) => m.text)).not.toContain("from a bot");
    expect(events.messages.map((m) => m.text)).not.toContain("my own");
    // A message the shared layer could not store: Discord will not send it again, so the sender is asked to.
    events.onMessage = async (message) => {
      if (message.text === "lost") throw new Error("disk full");
    };
    fake.sendMessage({ from: bob, content: "lost" });
    await fake.waitForBot(fake.dm(bob).id, /could not be received\. Please send it again/);
    events.onMessage = async () => {};
  });

  it("a user's file and voice message arrive as attachments the adapter downloads from the CDN (names sanitised); a url elsewhere is refused", async () => {
    const carol = fake.user({ username: "carol" });
    fake.sendMessage({
      from: carol,
      content: "see attached",
      attachments: [
        { filename: "../../etc/notes.txt", data: "line one\n", contentType: "text/plain" },
        { filename: "voice-message.ogg", data: Buffer.from([1, 2, 3]), voice: true },
      ],
    });
    const message = await textOf("see attached");
    expect(message.attachments.map((a) => [a.name, a.mimeType, a.size])).toEqual([
      ["notes.txt", "text/plain", 9],
      ["voice-message.ogg", "audio/ogg", 3],
    ]);
    const [file, voice] = message.attachments;
    expect(String(await adapter.download?.(file ?? { name: "", ref: "" }))).toBe("line one\n");
    expect([...((await adapter.download?.(voice ?? { name: "", ref: "" })) ?? [])]).toEqual([1, 2, 3]);
    await expect(
      adapter.download?.({ name: "x", ref: "http://169.254.169.254/latest" }),
    ).rejects.toMatchObject({
      kind: "permanent",
    });
    // A file over the cap is refused without being held whole.
    fake.sendMessage({
      from: carol,
      content: "too big",
      attachments: [{ filename: "big.bin", data: Buffer.alloc(DISCORD_CAPABILITIES.maxFileBytes + 1) }],
    });
    const [big] = (await textOf("too big")).attachments;
    await expect(adapter.download?.(big ?? { name: "", ref: "" })).rejects.toMatchObject({
      kind: "permanent",
    });
    expect(DISCORD_CAPABILITIES).toMatchObject({ filesIn: true, voiceIn: true, threads: "threads" });
  });
});

describe("Discord adapter: interactions", () => {
  it("a button press is acknowledged (deferred update) within 3 s, and the presser alone sees the shared layer's text", async () => {
    const dave = fake.user({ username: "dave" });
    const to = { chatId: fake.dm(dave).id, userId: dave.id };
    const { messageId } = await adapter.send(to, "Approve?", {
      idempotencyKey: "approve-1",
      buttons: [
        [
          { label: "Approve", data: "b:1" },
          { label: "Deny", data: "b:2" },
        ],
      ],
    });
    events.onButton = async () => "✅ Approved";
    const id = fake.pressButton({ from: dave, messageId, customId: "b:1" });
    await fake.waitForCall("POST", new RegExp(`^/webhooks/${fake.applicationId}/`));
    const interaction = fake.interaction(id);
    expect(interaction?.callbacks.map((c) => c.type)).toEqual([6]);
    expect((interaction?.callbacks[0]?.at ?? Infinity) - (interaction?.at ?? 0)).toBeLessThan(3_000);
    expect(events.presses.at(-1)).toMatchObject({ data: "b:1", messageId, sender: { id: dave.id } });
    expect(fake.renderTranscript(to.chatId)).toBe(
      ["bot: Approve?", "   [Approve → b:1] [Deny → b:2]", "bot (ephemeral): ✅ Approved"].join("\n"),
    );
  });

  it("a slash command arrives as the text of a message, is stored before it is deferred, and its answer fills the placeholder", async () => {
    const erin = fake.user({ username: "erin" });
    let storedBeforeAck = false;
    events.onMessage = async (message) => {
      if (message.text.startsWith("/shell"))
        storedBeforeAck = fake.interaction(message.id)?.callbacks.length === 0;
    };
    const id = fake.slashCommand({ from: erin, name: "shell", args: "echo hi" });
    const message = await textOf("/shell echo hi");
    expect(message).toMatchObject({
      id,
      sender: { id: erin.id },
      channel: { type: "private" },
      isMention: true,
    });
    await waitFor(() => fake.interaction(id)?.callbacks.length === 1);
    expect(storedBeforeAck).toBe(true);
    expect(fake.interaction(id)?.callbacks.map((c) => c.type)).toEqual([5]);
    const chatId = message.channel.id;
    const sent = await adapter.send({ chatId, userId: erin.id }, "hi", { idempotencyKey: "s1", replyTo: id });
    expect(sent.messageId).toBe(fake.interaction(id)?.original);
    await adapter.send({ chatId, userId: erin.id }, "and more", { idempotencyKey: "s2" });
    expect(fake.renderTranscript(chatId)).toBe("bot (edited): hi\nbot: and more");
    // The command list: each menu entry as a slash command taking its arguments as text.
    await adapter.setCommands?.([
      { command: "shell", description: "Run a command" },
      { command: "Bad Name", description: "refused by Discord" },
    ]);
    expect(fake.commands()).toMatchObject([
      { name: "shell", description: "Run a command", type: 1, options: [{ name: "args", type: 3 }] },
    ]);
  });
});

describe("Discord adapter: sending", () => {
  it("threads: a guild message's details go in a thread started from it (created once), a DM's as replies", async () => {
    const frank = fake.user({ username: "frank" });
    const channel = fake.guildChannel("ops");
    const guildTo = { chatId: channel.id, userId: frank.id };
    const main = await adapter.send(guildTo, "Working on it", { idempotencyKey: "m" });
    await adapter.send(guildTo, "tool: ls", { idempotencyKey: "d1", thread: main.messageId });
    await adapter.send(guildTo, "tool: cat", { idempotencyKey: "d2", thread: main.messageId });
    expect(fake.callsOf("POST", `/channels/${channel.id}/messages/${main.messageId}/threads`)).toHaveLength(
      1,
    );
    expect(fake.channel(main.messageId)).toMatchObject({ type: 11, parent_id: channel.id });
    expect(fake.renderTranscript(main.messageId)).toBe("bot: tool: ls\nbot: tool: cat");
    expect(fake.renderTranscript(channel.id)).toBe("bot: Working on it");

    const dmTo = { userId: frank.id };
    const dmMain = await adapter.send(dmTo, "Working in DM", { idempotencyKey: "dm" });
    await adapter.send(dmTo, "tool: ls", { idempotencyKey: "dd", thread: dmMain.messageId });
    const dm = fake.dm(frank).id;
    expect(fake.transcript(dm).map((e) => [e.content, e.replyTo])).toEqual([
      ["Working in DM", undefined],
      ["tool: ls", dmMain.messageId],
    ]);
  });

  it("a long answer is split within 2,000 characters, code fences balanced in every part, and nothing pings", async () => {
    const gina = fake.user({ username: "gina" });
    const code = Array.from({ length: 120 }, (_, i) => `console.log("line ${i} @everyone");`).join("\n");
    const answer = `Hey @everyone and @here, see:\n\n\`\`\`js\n${code}\n\`\`\`\n\n${"More words. ".repeat(300)}`;
    await hub.sendText({ platform: "discord", userId: `discord:${gina.id}` }, answer);
    const parts = fake.transcript(fake.dm(gina).id);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2_000);
      expect((part.content.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    expect(parts[0]?.content).toContain("Hey @\u200beveryone and @\u200bhere");
    const sends = fake.callsOf("POST", `/channels/${fake.dm(gina).id}/messages`);
    expect(
      sends.every(
        (call) =>
          JSON.stringify((call.body as { allowed_mentions: unknown }).allowed_mentions) === '{"parse":[]}',
      ),
    ).toBe(true);
  });

  it("files: one within the limit is uploaded (multipart); an oversized one is refused with a sentence", async () => {
    const hank = fake.user({ username: "hank" });
    const to = { platform: "discord", userId: `discord:${hank.id}` };
    const sent = await hub.sendFile(to, {
      name: "report.pdf",
      data: Buffer.alloc(2048, 7),
      mimeType: "application/pdf",
    });
    const stored = fake.message(sent?.messageId ?? "");
    expect(stored?.attachments.map((a) => [a.filename, a.size])).toEqual([["report.pdf", 2048]]);
    expect(fake.file(stored?.attachments[0]?.id ?? "")?.equals(Buffer.alloc(2048, 7))).toBe(true);
    await hub.sendFile(to, { name: "huge.bin", data: Buffer.alloc(10 * 1024 * 1024 + 1) });
    expect(fake.transcript(fake.dm(hank).id).at(-1)?.content).toBe(
      "📎 huge.bin is 10.0 MB; Discord accepts files up to 10.0 MB, so it was not sent.",
    );
  });

  it("a 429 with retry_after is waited out by the shared send queue and the message arrives once; 5xx is transient, 50007 permanent", async () => {
    const ivy = fake.user({ username: "ivy" });
    const dm = fake.dm(ivy).id;
    fake.failNext(`POST /channels/${dm}/messages`, { status: 429, retryAfter: 0.3 });
    const started = Date.now();
    await hub.sendText(
      { platform: "discord", userId: `discord:${ivy.id}`, chatId: `discord:${dm}` },
      "after the limit",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(fake.callsOf("POST", `/channels/${dm}/messages`).map((c) => c.status)).toEqual([429, 200]);
    expect(fake.renderTranscript(dm)).toBe("bot: after the limit");

    const to = { chatId: dm, userId: ivy.id };
    fake.failNext(`POST /channels/${dm}/messages`, { status: 502 });
    await expect(adapter.send(to, "x", { idempotencyKey: "t" })).rejects.toMatchObject({
      kind: "transient",
      details: { status: 502 },
    });
    fake.closeDms(ivy);
    const refused = await adapter.send(to, "x", { idempotencyKey: "p" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PlatformError);
    expect(refused).toMatchObject({ kind: "permanent", details: { status: 403, code: 50007 } });
    // One idempotency key, one message: a retried send after a lost answer is not shown twice.
    const other = fake.user({ username: "jay" });
    const jay = { userId: other.id };
    await adapter.send(jay, "once", { idempotencyKey: "same" });
    await adapter.send(jay, "once", { idempotencyKey: "same" });
    expect(fake.renderTranscript(fake.dm(other).id)).toBe("bot: once");
  });

  it("edits replace the text and remove buttons; status() reports the gateway", async () => {
    const kim = fake.user({ username: "kim" });
    const to = { userId: kim.id };
    const { messageId } = await adapter.send(to, "step 1", {
      idempotencyKey: "e",
      buttons: [[{ label: "Stop", data: "s" }]],
    });
    await adapter.edit(to, messageId, "step 2");
    expect(fake.renderTranscript(fake.dm(kim).id)).toBe("bot (edited): step 2");
    await expect(adapter.edit(to, "not-an-id", "x")).rejects.toMatchObject({ kind: "permanent" });
    expect(adapter.status?.()).toMatchObject({ platform: "discord", name: "discord", connected: true });
  });
});

describe("Discord adapter: the gateway connection", () => {
  // INVALID_SESSION (the fake's invalidateSession) is left out: the library waits out Discord's
  // 5 s between two IDENTIFYs, too long for this suite.
  it("heartbeats are sent and acknowledged; RECONNECT resumes, and messages keep arriving", async () => {
    const own = await startFake(scope, { heartbeatIntervalMs: 50 });
    const { events: seen, adapter: connected } = await startAdapter(scope, own);
    await waitFor(() => own.gateway().heartbeats >= 2, { message: "two heartbeats" });
    const lena = own.user({ username: "lena" });
    own.reconnect();
    await waitFor(() => own.gateway().resumes === 1, { message: "a resume after RECONNECT" });
    own.sendMessage({ from: lena, content: "after reconnect" });
    await seen.messageWithText("after reconnect");
    expect(connected.status?.()).toMatchObject({ connected: true });
  });

  it("without the Message Content intent the start fails, saying what to turn on", async () => {
    const own = await startFake(scope, { messageContentIntent: false });
    const { adapter: refused } = discordAdapter(scope, own);
    await expect(refused.start(new RecordingEvents())).rejects.toThrow(
      /Message Content intent is not enabled/,
    );
  });
});
