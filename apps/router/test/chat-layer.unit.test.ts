import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { createTestLogger, waitFor } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { AdapterAccess } from "../src/access/adapter-access.ts";
import { BUTTONS_MIGRATION, ButtonStore } from "../src/chat/button-store.ts";
import { ChatHub } from "../src/chat/chat-hub.ts";
import type { IncomingMessage } from "../src/chat/chat-types.ts";
import { DEFAULT_RETRY } from "../src/chat/send-retry.ts";
import { CHAT_INBOX_MIGRATION, CHAT_INBOX_REQUEST_KEY_MIGRATION } from "../src/intake/chat-inbox.ts";
import { ChatLayer } from "../src/intake/chat-layer.ts";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { type Capabilities, PlatformError } from "../src/platforms/platform-adapter.ts";
import { SEEN_EVENTS_MIGRATION } from "../src/storage/seen-events.ts";
import { TurnCommit } from "../src/storage/turn-commit.ts";

// The shared chat layer, once, with an in-memory adapter: dedupe, storing before acknowledging,
// access, group mentions, splitting, the per-chat queue, retries and buttons. Each platform's own
// tests then cover only its translation.

const dbs: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function newDb(): SqliteDatabase {
  const db = openDatabase(":memory:", {
    migrations: [
      SEEN_EVENTS_MIGRATION,
      CHAT_INBOX_MIGRATION,
      CHAT_INBOX_REQUEST_KEY_MIGRATION,
      BUTTONS_MIGRATION,
    ],
  });
  dbs.push(db);
  return db;
}

interface Setup {
  db?: SqliteDatabase;
  access?: { admins: string[]; dm: "everyone" | "none" | string[] };
  capabilities?: Partial<Capabilities>;
  deliver?: (message: IncomingMessage) => Promise<void>;
}

async function startLayer(setup: Setup = {}) {
  const db = setup.db ?? newDb();
  const adapter: MemoryChatAdapter = createMemoryChatAdapter("mem", setup.capabilities);
  const waits: number[] = [];
  const delivered: IncomingMessage[] = [];
  const layer = new ChatLayer({
    adapters: [adapter],
    accessFor: () => new AdapterAccess(setup.access ?? { admins: [], dm: "everyone" }),
    db,
    now: () => Date.now(),
    seenTtlMs: 86_400_000,
    buttonTtlMs: 86_400_000,
    maxAttachmentBytes: 1024,
    maxPerChat: 50,
    retry: {
      attempts: 4,
      baseMs: 10,
      maxMs: 1000,
      maxRetryAfterMs: 5000,
      sleep: async (ms) => {
        waits.push(ms);
      },
    },
    logger: createTestLogger().logger,
  });
  await layer.start(
    setup.deliver ??
      (async (message) => {
        delivered.push(message);
      }),
  );
  return { layer, adapter, db, delivered, waits, hub: layer.hub };
}

const to = { platform: "mem", userId: "mem:u1", chatId: "mem:c1" };

describe("the shared chat layer", () => {
  it("qualifies ids with the adapter's name before anything else sees them", async () => {
    const { adapter, delivered } = await startLayer();
    await adapter.receive({ userId: "u1", chatId: "c1", text: "hello" });
    await waitFor(() => delivered.length === 1);
    expect(delivered[0]).toMatchObject({
      platform: "mem",
      userId: "mem:u1",
      chatId: "mem:c1",
      text: "hello",
    });
  });

  it("handles a message in the turn it came: the handler's writes share its commit, acked after it", async () => {
    const db = newDb();
    db.exec("CREATE TABLE origins (message_id TEXT)");
    const turn = TurnCommit.of(db);
    const events: string[] = [];
    const { adapter } = await startLayer({
      db,
      deliver: async (message) => {
        events.push("handling");
        // As the request's origin is recorded: queued in the turn the message came.
        await turn.run(() => db.prepare("INSERT INTO origins VALUES (?)").run(message.messageId));
        await message.stored;
        events.push("stored");
      },
    });
    const before = turn.stats.commits;
    await adapter.receive({ userId: "u1", chatId: "c1", text: "hi" }).then(() => events.push("acked"));
    await waitFor(() => events.includes("stored"));
    expect(events[0]).toBe("handling"); // before the commit, so its write joined it
    expect(turn.stats.commits - before).toBe(1);
    expect(db.prepare("SELECT count(*) AS n FROM origins").get()).toEqual({ n: 1 });
  });

  it("drops the same message taken twice in one turn, acknowledging the copy only after the commit", async () => {
    const db = newDb();
    const turn = TurnCommit.of(db);
    const { adapter, layer, delivered } = await startLayer({ db });
    const before = turn.stats.commits;
    const commitsAtAck: number[] = [];
    const twice = [1, 2].map(() =>
      adapter
        .receive({ id: "7", userId: "u1", chatId: "c1", text: "once" })
        .then(() => commitsAtAck.push(turn.stats.commits - before)),
    );
    await Promise.all(twice);
    await layer.drain();
    expect(delivered.length).toBe(1);
    // Neither copy is acknowledged before the one stored is committed: a crash loses neither.
    expect(commitsAtAck).toEqual([1, 1]);
  });

  it("drops a redelivered message, also after a restart on the same database", async () => {
    const db = newDb();
    const first = await startLayer({ db });
    await first.adapter.receive({ id: "42", userId: "u1", chatId: "c1", text: "once" });
    await first.adapter.receive({ id: "42", userId: "u1", chatId: "c1", text: "once" });
    await first.layer.drain();
    await first.layer.stop();
    const second = await startLayer({ db });
    await second.adapter.receive({ id: "42", userId: "u1", chatId: "c1", text: "once" });
    await second.layer.drain();
    expect(first.delivered.length + second.delivered.length).toBe(1);
  });

  it("stores before it returns; a message stored but not handled before a stop is handled at the next start, once", async () => {
    const db = newDb();
    let release: () => void = () => {};
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = await startLayer({ db, deliver: () => stuck });
    // Resolving means stored: only now may the platform be told it arrived.
    await first.adapter.receive({ id: "7", userId: "u1", chatId: "c1", text: "survive me" });
    await first.layer.stop(); // the router dies before the dispatcher took it
    const second = await startLayer({ db });
    await waitFor(() => second.delivered.length === 1);
    expect(second.delivered[0]?.text).toBe("survive me");
    release();
    const third = await startLayer({ db });
    await third.layer.drain();
    expect(third.delivered).toEqual([]);
  });

  it("a drain waits for a message still waiting for its store's commit (piped input ending at once)", async () => {
    const { adapter, delivered, layer } = await startLayer();
    // Not awaited: the store commits at the end of this turn, after drain() is called.
    const received = adapter.receive({ userId: "piped", text: "/nodes" });
    await layer.drain();
    expect(delivered.map((m) => m.text)).toEqual(["/nodes"]);
    await received;
  });

  it("tells a user the access rules do not let in their id, once, and hands nothing on", async () => {
    const { adapter, delivered, layer } = await startLayer({
      access: { admins: ["mem:boss"], dm: ["mem:friend"] },
    });
    await adapter.receive({ userId: "stranger", text: "let me in" });
    await adapter.receive({ userId: "stranger", text: "please" });
    await adapter.receive({ userId: "boss", text: "admin" });
    await adapter.receive({ userId: "friend", text: "dm list" });
    await layer.drain();
    expect(delivered.map((m) => m.text)).toEqual(["admin", "dm list"]);
    expect(adapter.textsFor("stranger")).toEqual([
      "🔒 This bot is private. Ask its owner to add your id to ALLOWED_USERS: mem:stranger",
    ]);
  });

  it("answers a group only when the bot is mentioned, and only for people it lets in", async () => {
    const { adapter, delivered, layer } = await startLayer({ access: { admins: ["mem:boss"], dm: "none" } });
    await adapter.receive({
      userId: "boss",
      chatId: "g1",
      chatType: "group",
      isMention: false,
      text: "chatter",
    });
    await adapter.receive({
      userId: "boss",
      chatId: "g1",
      chatType: "group",
      isMention: true,
      text: "@bot status",
    });
    await adapter.receive({
      userId: "other",
      chatId: "g1",
      chatType: "group",
      isMention: true,
      text: "@bot rm -rf",
    });
    await layer.drain();
    expect(delivered.map((m) => m.text)).toEqual(["@bot status"]);
    expect(delivered[0]?.chatType).toBe("group");
  });

  it("tells the sender when a message type cannot be read", async () => {
    const { adapter, delivered, layer } = await startLayer();
    await adapter.receive({ userId: "u1", text: "", unsupported: "sticker" });
    await layer.drain();
    expect(delivered).toEqual([]);
    expect(adapter.textsFor("u1")[0]).toBe(
      "I cannot read this kind of message (sticker). Please send it as text.",
    );
  });

  it("fetches attachments within the bound and names the ones it could not take", async () => {
    const { adapter, delivered, layer } = await startLayer();
    adapter.download = async (ref) => Buffer.from(ref.ref === "big" ? "x".repeat(2000) : "small file");
    await adapter.receive({
      userId: "u1",
      text: "see files",
      attachments: [
        { name: "a.txt", ref: "a", mimeType: "text/plain" },
        { name: "big.bin", ref: "big" },
        { name: "huge.iso", ref: "huge", size: 10_000_000 },
      ],
    });
    await layer.drain();
    expect(delivered[0]?.attachments).toEqual([
      { name: "a.txt", mimeType: "text/plain", data: Buffer.from("small file") },
    ]);
    expect(delivered[0]?.text).toContain("see files");
    expect(delivered[0]?.text).toContain("[attachment big.bin not received: larger than");
    expect(delivered[0]?.text).toContain("[attachment huge.iso not received: larger than");
  });

  it("splits a long answer at the platform's limit with [i/n], never inside a code block", async () => {
    const { adapter, hub } = await startLayer({ capabilities: { maxMessageLength: 300 } });
    const code = ["```ts", ...Array.from({ length: 30 }, (_, i) => `const line${i} = ${i};`), "```"].join(
      "\n",
    );
    const text = `Intro paragraph.\n\n${code}\n\nOutro paragraph.`;
    await hub.sendText(to, text);
    const parts = adapter.sent.map((m) => m.text);
    expect(parts.length).toBeGreaterThan(2);
    parts.forEach((part, index) => {
      expect(part.length).toBeLessThanOrEqual(300);
      expect(part.startsWith(`[${index + 1}/${parts.length}]`)).toBe(true);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0); // every fence closed in its own part
    });
    const body = parts.join("\n");
    for (let i = 0; i < 30; i++) expect(body).toContain(`const line${i} = ${i};`);
  });

  it("where a reply is a place (Slack's threads), every piece of a split answer goes there; elsewhere, threads or not, only the first replies", async () => {
    const text = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} `.repeat(6)).join("\n\n");
    for (const [capabilities, expected] of [
      [{ threads: "threads", replyIsPlace: true }, ["q1", "q1", "q1"]],
      [{ threads: "threads" }, ["q1", undefined, undefined]],
      [{ threads: "replies" }, ["q1", undefined, undefined]],
    ] as const) {
      const { adapter, hub } = await startLayer({ capabilities: { maxMessageLength: 300, ...capabilities } });
      await hub.sendText(to, text, { replyTo: "q1" });
      const replies = adapter.sent.map((m) => m.replyTo);
      expect(replies.length).toBeGreaterThan(2);
      expect(replies.slice(0, 3)).toEqual(expected);
    }
  });

  it("sends one chat's messages in order, one at a time; another chat is not held up", async () => {
    const { adapter, hub } = await startLayer();
    const order: string[] = [];
    let releaseSlow: () => void = () => {};
    const slowGate = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const send = adapter.send.bind(adapter);
    adapter.send = async (dest, text, options) => {
      if (text === "slow") await slowGate;
      order.push(text);
      return send(dest, text, options);
    };
    const slow = hub.sendText(to, "slow");
    const next = hub.sendText(to, "after slow");
    await hub.sendText({ platform: "mem", userId: "mem:u2", chatId: "mem:c2" }, "other chat");
    expect(order).toEqual(["other chat"]);
    releaseSlow();
    await Promise.all([slow, next]);
    expect(order).toEqual(["other chat", "slow", "after slow"]);
  });

  it("waits as long as a rate limit says, and retries with the same idempotency key", async () => {
    const { adapter, hub, waits } = await startLayer();
    const keys: string[] = [];
    const send = adapter.send.bind(adapter);
    let calls = 0;
    adapter.send = async (dest, text, options) => {
      keys.push(options.idempotencyKey);
      if (++calls === 1) throw new PlatformError("rate_limited", "Too Many Requests", { retryAfterMs: 3000 });
      if (calls === 2) throw new Error("ECONNRESET"); // not a PlatformError: a network error, retried
      return send(dest, text, options);
    };
    const sent = await hub.sendText(to, "hello");
    expect(sent?.messageId).toBeDefined();
    expect(waits).toEqual([3000, 20]); // retry-after honoured, then backoff (baseMs 10 · 2^1)
    expect(new Set(keys).size).toBe(1);
    expect(adapter.sent.map((m) => m.text)).toEqual(["hello"]);
  });

  it("does not retry a refusal: the chat is told once, and the caller gets undefined", async () => {
    const { adapter, hub, waits } = await startLayer();
    const send = adapter.send.bind(adapter);
    let calls = 0;
    adapter.send = async (dest, text, options) => {
      if (++calls === 1) throw new PlatformError("permanent", "chat not found", { code: 400 });
      return send(dest, text, options);
    };
    expect(await hub.sendText(to, "doomed")).toBeUndefined();
    expect(waits).toEqual([]);
    expect(adapter.sent.map((m) => m.text)).toEqual([
      "⚠️ A reply could not be delivered to this chat (memory error 400). Please try again.",
    ]);
  });

  it("gives up on a rate limit longer than it is willing to wait", async () => {
    const { adapter, hub, waits } = await startLayer();
    adapter.send = async () => {
      throw new PlatformError("rate_limited", "Too Many Requests", { retryAfterMs: 3_600_000 });
    };
    expect(await hub.sendText(to, "later")).toBeUndefined();
    expect(waits).toEqual([]);
  });

  it("an edit that changes nothing is not an error", async () => {
    const { adapter, hub } = await startLayer();
    const sent = await hub.sendText(to, "progress");
    adapter.edit = async () => {
      throw new PlatformError("not_modified", "message is not modified");
    };
    expect(await hub.editText(to, sent?.messageId ?? "", "progress")).toBe(true);
  });

  it("a pressed button is its command from the presser; each row answers once; strangers and made-up ids get nothing", async () => {
    const { adapter, hub, delivered, layer } = await startLayer();
    await hub.sendText(to, "🔐 Codex wants to run: make deploy", {
      buttons: [
        [
          { label: "Approve", command: "/approve 7" },
          { label: "Deny", command: "/deny 7" },
        ],
      ],
    });
    expect(await adapter.press("Approve", "intruder")).toBe("This button is not for you.");
    expect(await adapter.press("Approve")).toBe("✓ Approve");
    expect(await adapter.press("Deny")).toBe("Already answered.");
    expect(await adapter.press("Approve")).toBe("Already answered.");
    await layer.drain();
    expect(delivered.map((m) => [m.userId, m.text])).toEqual([["mem:u1", "/approve 7"]]);
  });

  it("a button id nobody sent is expired, not a command", async () => {
    const { adapter, delivered, layer, hub } = await startLayer();
    await hub.sendText(to, "x", { buttons: [[{ label: "Real", command: "/nodes" }]] });
    // The press comes from the platform with data the router never gave out.
    const button = adapter.sent.at(-1)?.buttons?.[0]?.[0];
    if (button) button.data = "made-up-id";
    expect(await adapter.press("Real")).toBe("This button has expired.");
    await layer.drain();
    expect(delivered).toEqual([]);
  });

  it("renders Markdown to the platform's dialect, escaping what the platform would read as markup", async () => {
    const { adapter, hub } = await startLayer({
      capabilities: { markdown: "telegram-html", maxMessageLength: 4096 },
    });
    await hub.sendText(to, "**done**: `a < b` and <script>alert(1)</script> & [docs](javascript:alert(1))");
    const [sent] = adapter.sent.map((m) => m.text);
    expect(sent).toContain("<b>done</b>");
    expect(sent).toContain("<code>a &lt; b</code>");
    expect(sent).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp;");
    expect(sent).not.toContain("<a ");
  });

  it("buttons are left out where the platform has none: the text carries the command", async () => {
    const { adapter, hub } = await startLayer({ capabilities: { canSendButtons: false } });
    await hub.sendText(to, "Reply /approve 7", { buttons: [[{ label: "Approve", command: "/approve 7" }]] });
    expect(adapter.sent[0]?.buttons).toBeUndefined();
    expect(adapter.sent[0]?.text).toBe("Reply /approve 7");
  });

  it("before Telegram's parser is loaded, a send shows the Markdown as written, escaped, never as markup", async () => {
    const adapter = createMemoryChatAdapter("mem", { markdown: "telegram-html", maxMessageLength: 4096 });
    const hub = new ChatHub([adapter], {
      logger: createTestLogger().logger,
      buttons: ButtonStore.inMemory(60_000, Date.now),
      retry: DEFAULT_RETRY,
    });
    await hub.sendText(to, "**b** <i>x</i> & y");
    await hub.prepare();
    await hub.sendText(to, "**b** <i>x</i> & y");
    expect(adapter.sent.map((m) => m.text)).toEqual([
      "**b** &lt;i&gt;x&lt;/i&gt; &amp; y",
      "<b>b</b> &lt;i&gt;x&lt;/i&gt; &amp; y",
    ]);
  });
});
