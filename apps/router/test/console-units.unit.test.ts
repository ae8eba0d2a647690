import type { RouterFrame } from "@phonework/protocol";
import { createManualClock, createTestLogger } from "@phonework/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleAccess } from "../src/console/console-access.ts";
import { createConsoleAdapter } from "../src/console/console-adapter.ts";
import { ConsoleFeed } from "../src/console/console-feed.ts";
import type { ConsoleServerFrame } from "../src/console/console-frames.ts";
import { ConsoleHistory } from "../src/console/console-history.ts";
import { ConsoleSessions } from "../src/console/console-sessions.ts";
import { consoleFileType, rasterImageType } from "../src/console/file-type.ts";
import { LoginLinks } from "../src/console/login-links.ts";
import type { NodeInfo } from "../src/registry/node-info.ts";
import type { RegistryEvent } from "../src/registry/node-registry.ts";
import {
  type TerminalEndReason,
  TerminalRelay,
  type TerminalViewer,
} from "../src/terminals/terminal-relay.ts";
import { UserStateStore } from "../src/users/user-state-store.ts";

// The console's parts on their own: links, sessions, the chat feed, the type a file is given, who
// may use it, and the terminal relay's rules (whose terminal, which node, how much output in flight).

const node = (overrides: Partial<NodeInfo> = {}): NodeInfo => ({
  nodeId: "home-pc",
  displayName: "home-pc",
  servesUsers: ["memory:alice"],
  owner: undefined,
  paired: false,
  revoked: false,
  capabilities: ["terminal"],
  workingDir: "/",
  sessions: [],
  commands: [],
  tools: [],
  protocolVersion: 3,
  status: "online",
  connectedAt: 0,
  lastSeen: 0,
  ...overrides,
});

function viewer(userId = "memory:alice") {
  const events: Array<{
    id: string;
    what: string;
    reason?: TerminalEndReason;
    message?: string;
    data?: string;
  }> = [];
  const page: TerminalViewer = {
    userId,
    chatId: `console:${userId}`,
    opened: (id) => events.push({ id, what: "opened" }),
    output: (id, data) => events.push({ id, what: "output", data }),
    ended: (id, end) => events.push({ id, what: "ended", ...end }),
  };
  return { page, events };
}

function relayWorld(bufferBytes = 1024, reattachMs = 60_000) {
  const nodes = new Map([["home-pc", node()]]);
  const sent: Array<{ nodeId: string; frame: RouterFrame }> = [];
  const listeners = new Set<(event: RegistryEvent<unknown>) => void>();
  let ids = 0;
  const relay = new TerminalRelay({
    nodes: {
      get: (id) => nodes.get(id),
      nodesForUser: (user) => [...nodes.values()].filter((n) => n.servesUsers.includes(user)),
      send: (nodeId, frame) => {
        sent.push({ nodeId, frame });
        return nodes.get(nodeId)?.status === "online";
      },
    },
    bufferBytes,
    platform: "console",
    reattachMs,
    logger: createTestLogger().logger,
    newId: () => `t${++ids}`,
  });
  relay.watch((listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  });
  const emit = (event: RegistryEvent<unknown>) => {
    for (const listener of listeners) listener(event);
  };
  /** The host `nodeId` answering that the page's first terminal opened, with credit `window`. */
  const opened = (nodeId: string, window = 512) =>
    relay.receive(nodeId, { type: "terminal_opened", id: "console-t1", user_id: "memory:alice", window });
  return { relay, nodes, sent, emit, opened, types: () => sent.map((s) => s.frame.type) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("login links", () => {
  it("work once, within their TTL, and are stored only as a hash", () => {
    const clock = createManualClock();
    const links = LoginLinks.inMemory(300_000, clock.now);
    const { code } = links.create("memory:alice");
    expect(links.redeem(code)).toBe("memory:alice");
    expect(links.redeem(code)).toBeUndefined();
    const late = links.create("memory:alice").code;
    clock.advance(300_000);
    expect(links.redeem(late)).toBeUndefined();
  });
});

describe("console sessions", () => {
  it("last their TTL, end one by one or all of a user's at once, and say which ended", () => {
    const clock = createManualClock();
    const sessions = ConsoleSessions.inMemory(1000, clock.now);
    const ended: string[] = [];
    sessions.onEnded((ids) => ended.push(...ids));
    const a = sessions.start("memory:alice");
    const b = sessions.start("memory:alice");
    const c = sessions.start("memory:bob");
    expect(sessions.find(a.token)?.userId).toBe("memory:alice");
    expect(sessions.find("not-a-token")).toBeUndefined();
    sessions.end(a.session.id);
    expect(sessions.find(a.token)).toBeUndefined();
    expect(sessions.endAllFor("memory:alice")).toBe(1);
    expect(ended).toEqual([a.session.id, b.session.id]);
    clock.advance(1000);
    expect(sessions.isLive(c.session.id)).toBe(false);
  });
});

describe("console feed", () => {
  it("keeps a bounded history per user, with edits, and without file contents", () => {
    const feed = new ConsoleFeed({ maxMessages: 2, maxChars: 100, maxUsers: 1 });
    const seen: string[] = [];
    const stop = feed.subscribe("u", (frame) => seen.push(frame.type));
    feed.publish("u", { type: "message", message: { id: "1", text: "one", at: 0 } });
    feed.publish("u", {
      type: "message",
      message: { id: "2", text: "📎 a.txt", at: 0, file: { name: "a.txt", size: 3, data_base64: "YWJj" } },
    });
    feed.publish("u", { type: "message", message: { id: "3", text: "three", at: 0 } });
    feed.publish("u", { type: "edit", id: "3", text: "three, edited" });
    expect(feed.messages("u")).toEqual([
      { id: "2", text: "📎 a.txt", at: 0, file: { name: "a.txt", size: 3 } },
      { id: "3", text: "three, edited", at: 0 },
    ]);
    expect(seen).toEqual(["message", "message", "message", "edit"]);
    feed.publish("u", { type: "message", message: { id: "4", text: "y".repeat(90), at: 0 } });
    expect(feed.messages("u").map((message) => message.id)).toEqual(["4"]); // within 100 characters
    stop();
    feed.publish("v", { type: "message", message: { id: "x", text: "x", at: 0 } });
    expect(feed.messages("u")).toEqual([]); // one user kept: the least recent went
    expect(feed.pageCount).toBe(0);
  });

  it("with a store, the same bounded history comes back after a restart, each user's own", () => {
    const limits = { maxMessages: 3, maxChars: 100, maxUsers: 1 };
    const store = ConsoleHistory.inMemory();
    const before = new ConsoleFeed(limits, store);
    for (const id of ["1", "2", "3", "4", "5"])
      before.publish("u", {
        type: "message",
        message: { id, text: `m${id}`, at: Number(id), mine: id === "1" },
      });
    before.publish("u", {
      type: "edit",
      id: "4",
      text: "m4, edited",
      buttons: [[{ label: "Ok", data: "ok" }]],
    });
    before.publish("v", {
      type: "message",
      message: { id: "f", text: "📎 a.txt", at: 9, file: { name: "a.txt", size: 3, data_base64: "YWJj" } },
    });
    before.publish("u", { type: "edit", id: "1", text: "gone" }); // pushed out already: nothing stored
    const after = new ConsoleFeed(limits, store);
    expect(after.messages("u")).toEqual(before.messages("u"));
    expect(after.messages("u").map((message) => message.text)).toEqual(["m3", "m4, edited", "m5"]);
    expect(after.messages("v")).toEqual([
      { id: "f", text: "📎 a.txt", at: 9, file: { name: "a.txt", size: 3 } },
    ]);
    expect(after.has("u", "f")).toBe(false);
    expect(after.messages("w")).toEqual([]);
    // Pruned on insert: the store holds no more than the bound (and no file contents).
    after.publish("u", { type: "message", message: { id: "6", text: "y".repeat(99), at: 6 } });
    expect(new ConsoleFeed(limits, store).messages("u").map((message) => message.id)).toEqual(["6"]);
    expect(store.load("u", 100).map((message) => message.id)).toEqual(["6"]);
  });
});

describe("console file types", () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(
      parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))),
    );

  it("are raster images by their magic bytes, and opaque bytes otherwise", () => {
    expect(rasterImageType(bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 13]))).toBe("image/png");
    expect(rasterImageType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(rasterImageType(bytes("GIF87a\x01\x00"))).toBe("image/gif");
    expect(rasterImageType(bytes("GIF89a\x01\x00"))).toBe("image/gif");
    expect(rasterImageType(bytes("RIFF", [0x24, 0, 0, 0], "WEBPVP8 "))).toBe("image/webp");
    for (const other of [
      bytes("<!doctype html><script>alert(1)</script>"),
      bytes('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      bytes('<?xml version="1.0"?><svg/>'),
      bytes("RIFF", [0x24, 0, 0, 0], "WAVEfmt "), // a RIFF that is no WebP
      bytes([0x89], "PNG"), // cut short
      bytes("GIF8"),
      bytes(""),
    ]) {
      expect(rasterImageType(other)).toBeUndefined();
      expect(consoleFileType(other)).toBe("application/octet-stream");
    }
  });

  it("are what the router tells pages, whatever the host claimed", async () => {
    const feed = new ConsoleFeed();
    const files: unknown[] = [];
    feed.subscribe("u", (frame: ConsoleServerFrame) => {
      if (frame.type === "message") files.push(frame.message.file);
    });
    const adapter = createConsoleAdapter(feed, () => 0);
    const html = Buffer.from("<!doctype html><script>alert(1)</script>");
    const png = bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 13]);
    const sent: Array<[string, Buffer, string | undefined]> = [
      ["invoice.html", html, "text/html"],
      ["evil.svg", html, "image/svg+xml"],
      ["photo.png", html, "image/png"],
      ["real.png", png, "text/html"],
      ["notes", html, undefined],
    ];
    for (const [name, data, mimeType] of sent)
      await adapter.sendFile(
        { userId: "u" },
        { name, data, ...(mimeType ? { mimeType } : {}) },
        { idempotencyKey: name },
      );
    expect(files.map((file) => (file as { mime_type?: string }).mime_type)).toEqual([
      "application/octet-stream",
      "application/octet-stream",
      "application/octet-stream",
      "image/png",
      "application/octet-stream",
    ]);
  });
});

describe("console access", () => {
  it("follows the rules of the chat the user's id belongs to", () => {
    const chats = [{ name: "telegram" }, { name: "console", companion: true }] as never[];
    const policy = consoleAccess(chats, () => ({ mayUse: (user) => user === "telegram:1" }));
    expect(policy.mayUse("telegram:1", "private")).toBe(true);
    expect(policy.mayUse("telegram:2", "private")).toBe(false);
    expect(policy.mayUse("feishu:1", "private")).toBe(false); // no such chat here
    expect(policy.mayUse("console:telegram:1", "private")).toBe(false);
  });

  it("writing from the console keeps the user's notices where they were", () => {
    const state = UserStateStore.inMemory();
    state.rememberChat("telegram:1", { platform: "telegram", chat_id: "telegram:1" });
    const console = { platform: "console", chat_id: "console:telegram:1" };
    state.rememberChat("telegram:1", console, { latest: false });
    expect(state.chatOf("telegram:1")?.platform).toBe("telegram");
    expect(state.hasSeenChat("telegram:1", console)).toBe(true);
  });
});

describe("terminal relay", () => {
  it("opens only on an online node with terminals that serves the page's user", () => {
    const w = relayWorld();
    const alice = viewer();
    expect(w.relay.open(viewer("memory:bob").page, w.nodes.get("home-pc"), { cols: 80, rows: 24 })).toEqual({
      ok: false,
      message: "no such node",
    });
    w.nodes.set("home-pc", node({ capabilities: [] }));
    expect(w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 }).ok).toBe(false);
    w.nodes.set("home-pc", node({ status: "offline" }));
    expect(w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 }).ok).toBe(false);
    w.nodes.set("home-pc", node());
    expect(w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 })).toEqual({
      ok: true,
      id: "console-t1",
    });
    expect(w.sent[0]?.frame).toEqual({
      type: "terminal_open",
      id: "console-t1",
      user_id: "memory:alice",
      chat_id: "console:memory:alice",
      platform: "console",
      cols: 80,
      rows: 24,
    });
  });

  it("a page drives only its own terminals, and a node's frames count only for terminals on it", () => {
    const w = relayWorld();
    const alice = viewer();
    const otherTab = viewer(); // the same user, another page
    w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 });
    w.relay.input(otherTab.page, "console-t1", "rm -rf ~\r");
    w.relay.resize(otherTab.page, "console-t1", 10, 10);
    w.relay.close(otherTab.page, "console-t1");
    expect(w.types()).toEqual(["terminal_open"]);
    w.opened("work-pc");
    expect(alice.events).toEqual([]);
    w.opened("home-pc");
    w.relay.input(alice.page, "console-t1", "ls\r");
    expect(alice.events).toEqual([{ id: "console-t1", what: "opened" }]);
    expect(w.types()).toEqual(["terminal_open", "terminal_input"]);
  });

  it("passes credits on only as the page consumes output, and closes a terminal whose host overruns its window", () => {
    const w = relayWorld();
    const alice = viewer();
    w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 });
    w.opened("home-pc");
    w.relay.receive("home-pc", { type: "terminal_output", id: "console-t1", seq: 0, data: "x".repeat(300) });
    w.relay.ack(alice.page, "console-t1", 10_000); // more than it was given: only what is out counts
    expect(w.sent.at(-1)?.frame).toEqual({
      type: "terminal_ack",
      id: "console-t1",
      user_id: "memory:alice",
      bytes: 300,
    });
    w.relay.receive("home-pc", { type: "terminal_output", id: "console-t1", seq: 1, data: "y".repeat(400) });
    w.relay.receive("home-pc", { type: "terminal_output", id: "console-t1", seq: 2, data: "z".repeat(200) });
    expect(w.types().at(-1)).toBe("terminal_close");
    expect(alice.events.at(-1)).toMatchObject({
      what: "ended",
      message: "the host sent more output than it may",
    });
    expect(w.relay.size).toBe(0);
  });

  it("refuses a host whose window is larger than the router's buffer, naming both keys", () => {
    const w = relayWorld(1024);
    const alice = viewer();
    w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 });
    w.opened("home-pc", 4096);
    expect(alice.events.at(-1)?.message).toMatch(/TERMINAL_BUFFER_BYTES.*CONSOLE_TERMINAL_BUFFER_BYTES=1024/);
    expect(w.types()).toEqual(["terminal_open", "terminal_close"]);
  });

  it("ends terminals with their page, their node going offline or revoked, and their user losing the node", () => {
    const w = relayWorld();
    const alice = viewer();
    const open = () => {
      const opened = w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 });
      if (!opened.ok) throw new Error(opened.message);
      return opened.id;
    };
    open();
    open();
    w.relay.closePage(alice.page);
    expect(w.types().filter((type) => type === "terminal_close")).toHaveLength(2);
    const third = open();
    w.emit({ type: "offline", node: node({ status: "offline" }), connection: undefined });
    expect(alice.events.at(-1)).toEqual({
      id: third,
      what: "ended",
      reason: "offline",
      message: "home-pc went offline",
    });
    const fourth = open();
    w.emit({ type: "changed", node: node({ servesUsers: ["memory:bob"] }) });
    expect(alice.events.at(-1)).toMatchObject({
      id: fourth,
      reason: "gone",
      message: "home-pc no longer serves you",
    });
    expect(w.sent.at(-1)?.frame).toEqual({ type: "terminal_close", id: fourth, user_id: "memory:alice" });
    const fifth = open();
    w.emit({ type: "changed", node: node({ revoked: true }) });
    expect(alice.events.at(-1)).toMatchObject({ id: fifth, reason: "gone", message: "home-pc was revoked" });
    // Back online on a new connection before the old one was seen closing: the old link's terminals are gone.
    const sixth = open();
    w.emit({ type: "online", node: node(), connection: undefined, returning: false, joined: false });
    expect(alice.events.at(-1)).toMatchObject({ id: sixth, reason: "offline" });
    expect(w.relay.size).toBe(0);
    // The page typing while the link is already gone, before the router has seen it close: the
    // same words as when the registry says so first, whichever comes first.
    const seventh = open();
    w.nodes.set("home-pc", node({ status: "offline" }));
    w.relay.input(alice.page, seventh, "ls\r");
    expect(alice.events.at(-1)).toEqual({
      id: seventh,
      what: "ended",
      reason: "offline",
      message: "home-pc went offline",
    });
  });

  it("holds a page's terminals for a page of the same sign-in only, with what they printed meanwhile", () => {
    vi.useFakeTimers(); // the grace period passes when the test says so
    const w = relayWorld(1024, 50);
    const first = viewer();
    const opened = w.relay.open(first.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.message);
    w.opened("home-pc");
    w.relay.holdPage(first.page, "session-1");
    // The host prints while nobody looks: kept, within the window.
    w.relay.receive("home-pc", { type: "terminal_output", id: opened.id, seq: 0, data: "while away" });
    expect(w.relay.heldFor("session-1")).toEqual([{ id: opened.id, node: "home-pc" }]);
    expect(w.relay.heldFor("session-2")).toEqual([]);

    // Another sign-in of the same user (another browser), and another user with the right session id:
    // both refused, as if there were no such terminal; they cannot type into it either.
    const otherBrowser = viewer();
    const mallory = viewer("memory:mallory");
    const refused = { ok: false, message: "no such terminal (it ended, or is not this sign-in's)" };
    expect(w.relay.attach(otherBrowser.page, "session-2", opened.id, () => {})).toEqual(refused);
    expect(w.relay.attach(mallory.page, "session-1", opened.id, () => {})).toEqual(refused);
    w.relay.input(mallory.page, opened.id, "rm -rf ~\r");
    expect(w.types()).not.toContain("terminal_input");

    const back = viewer();
    const told: string[] = [];
    expect(w.relay.attach(back.page, "session-1", opened.id, (node) => told.push(node))).toEqual({
      ok: true,
      id: opened.id,
    });
    expect(told).toEqual(["home-pc"]);
    expect(back.events).toEqual([
      { id: opened.id, what: "opened" },
      { id: opened.id, what: "output", data: "while away" },
    ]);
    w.relay.input(back.page, opened.id, "ls\r");
    expect(w.sent.at(-1)?.frame).toMatchObject({ type: "terminal_input", data: "ls\r" });
    // Taken back: the grace timer is off; a page gone for longer than the grace ends it on the host.
    vi.advanceTimersByTime(80);
    expect(w.relay.size).toBe(1);
    w.relay.holdPage(back.page, "session-1");
    vi.advanceTimersByTime(49);
    expect(w.relay.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(w.relay.size).toBe(0);
    expect(w.sent.at(-1)?.frame).toEqual({ type: "terminal_close", id: opened.id, user_id: "memory:alice" });
  });

  it("a sign-in that ends ends the terminals held for it at once", () => {
    const w = relayWorld();
    const alice = viewer();
    const opened = w.relay.open(alice.page, w.nodes.get("home-pc"), { cols: 80, rows: 24 });
    if (!opened.ok) throw new Error(opened.message);
    w.relay.holdPage(alice.page, "session-1");
    w.relay.endSessions(["session-9"]);
    expect(w.relay.size).toBe(1);
    w.relay.endSessions(["session-1"]);
    expect(w.relay.size).toBe(0);
    expect(w.types()).toEqual(["terminal_open", "terminal_close"]);
  });
});
