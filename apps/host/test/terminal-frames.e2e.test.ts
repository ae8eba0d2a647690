import type { AnyFrame, FakeRouterConnection } from "@phonework/testkit";
import { makeTempDir, processRunning, waitFor, watchProcessErrors } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { HostDeps } from "../src/create-host.ts";
import { onCleanup, startHostWithModel } from "./support.ts";

// The terminal frames over the real link: the fake router plays the console's router, a real host
// opens real PTYs. Output flows only within the window the router's acks open, and a chat message
// on the same link is answered while a terminal floods it.

const USER = "telegram:1";

async function setup(overrides: Record<string, unknown> = {}, deps: Partial<HostDeps> = {}) {
  const started = await startHostWithModel(overrides, makeTempDir(), {
    // bash: dash, run as a login shell inside the sandbox's pid namespace, exits 2 at logout as
    // it cannot give the terminal back to a process group outside (README, Terminals).
    env: { ...process.env, SHELL: "/bin/bash" },
    ...deps,
  });
  return { ...started, link: started.router.latest() };
}

const open = (id: string, extra: Record<string, unknown> = {}) => ({
  type: "terminal_open",
  id,
  user_id: USER,
  chat_id: "c1",
  platform: "telegram",
  cols: 80,
  rows: 24,
  ...extra,
});
const input = (id: string, data: string, user = USER) => ({
  type: "terminal_input",
  id,
  user_id: user,
  data,
});

const outputs = (link: FakeRouterConnection, id: string) =>
  link.inbox.frames.filter((f) => f.type === "terminal_output" && f.id === id);
const outputOf = (link: FakeRouterConnection, id: string) =>
  outputs(link, id)
    .map((f) => String(f.data))
    .join("");
const waitForOutput = (link: FakeRouterConnection, id: string, text: string) =>
  waitFor(() => outputOf(link, id).includes(text), { message: `'${text}' from ${id}` });
const frameFor = (link: FakeRouterConnection, type: string, id: string, user = USER) =>
  link.inbox.next(type, (f) => f.id === id && f.user_id === user);

describe("terminal frames over the router link", () => {
  it("opens a shell, types into it, resizes it and closes it, leaving no process behind", async () => {
    const { link, router } = await setup();
    // node-pty loads beside the first connection: the capability comes with the register or just after.
    await waitFor(
      () =>
        (router.registrations[0]?.capabilities as string[] | undefined)?.includes("terminal") ||
        link.inbox.frames.some(
          (f) =>
            f.type === "sessions_update" && (f.capabilities as string[] | undefined)?.includes("terminal"),
        ),
      { message: "the terminal capability" },
    );
    link.send(open("t1"));
    expect(await frameFor(link, "terminal_opened", "t1")).toEqual({
      type: "terminal_opened",
      id: "t1",
      user_id: USER,
      window: 256 * 1024,
    });
    link.send(input("t1", "echo hi-$((40+2))\r"));
    await waitForOutput(link, "t1", "hi-42");
    link.send({ type: "terminal_resize", id: "t1", user_id: USER, cols: 100, rows: 30 });
    link.send(input("t1", "stty size; sleep 31.8181 &\r"));
    await waitForOutput(link, "t1", "30 100");
    await waitFor(() => processRunning("sleep 31.8181"), { message: "the background sleep" });
    link.send({ type: "terminal_close", id: "t1", user_id: USER });
    expect(await frameFor(link, "terminal_exit", "t1")).toEqual({
      type: "terminal_exit",
      id: "t1",
      user_id: USER,
      reason: "closed",
    });
    // The shell's own pid is the sandbox's when it is on: the background sleep stands for the tree.
    expect(processRunning("sleep 31.8181")).toBe(false);
    // Output came in order, numbered from 0, each piece within the frame's bound.
    const frames = outputs(link, "t1");
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i));
    // A frame for it now gets told it is gone.
    link.send(input("t1", "ls\r"));
    expect(await frameFor(link, "terminal_exit", "t1")).toMatchObject({ reason: "unknown" });
  });

  it("types keystrokes and applies a size sent before the terminal opened, once it runs", async () => {
    const { link } = await setup();
    link.send(open("eager"));
    link.send({ type: "terminal_resize", id: "eager", user_id: USER, cols: 90, rows: 20 });
    link.send(input("eager", "stty size; echo early-$((6*7))\r"));
    await frameFor(link, "terminal_opened", "eager");
    await waitForOutput(link, "eager", "early-42");
    expect(outputOf(link, "eager")).toContain("20 90");
    expect(link.inbox.frames.some((f) => f.type === "terminal_refused")).toBe(false);
  });

  it("reports a program's own exit with its code, after its last output", async () => {
    const { link } = await setup();
    link.send(open("t-exit"));
    await frameFor(link, "terminal_opened", "t-exit");
    link.send(input("t-exit", "echo bye; exit 3\r"));
    const exit = await frameFor(link, "terminal_exit", "t-exit");
    expect(exit).toMatchObject({ reason: "exited", code: 3 });
    expect(outputOf(link, "t-exit")).toContain("bye");
    const exitAt = link.inbox.frames.indexOf(exit);
    expect(link.inbox.frames.slice(exitAt).some((f) => f.type === "terminal_output")).toBe(false);
  });

  it("lets a user drive only the terminals they opened", async () => {
    const { link } = await setup({ SERVES_USERS: [USER, "telegram:2"] });
    link.send(open("mine"));
    await frameFor(link, "terminal_opened", "mine");
    const other = "telegram:2";
    link.send(input("mine", "echo FORGED\r", other));
    expect(await frameFor(link, "terminal_refused", "mine", other)).toEqual({
      type: "terminal_refused",
      id: "mine",
      user_id: other,
      error: { code: "UNAUTHORIZED", message: "terminal mine is not yours" },
    });
    link.send({ type: "terminal_resize", id: "mine", user_id: other, cols: 20, rows: 5 });
    expect(await frameFor(link, "terminal_refused", "mine", other)).toMatchObject({
      error: { code: "UNAUTHORIZED" },
    });
    link.send({ type: "terminal_close", id: "mine", user_id: other });
    expect(await frameFor(link, "terminal_refused", "mine", other)).toMatchObject({
      error: { code: "UNAUTHORIZED" },
    });
    // Still the owner's, untouched: the size is the one it opened with, and nothing was typed.
    link.send(input("mine", "stty size\r"));
    await waitForOutput(link, "mine", "24 80");
    expect(outputOf(link, "mine")).not.toContain("FORGED");
    // Another user's id, a user this node does not serve, an id in use.
    link.send(open("mine", { user_id: other }));
    expect(await frameFor(link, "terminal_refused", "mine", other)).toMatchObject({
      error: { code: "BAD_FRAME", message: "terminal mine is already open on this node" },
    });
    link.send(open("theirs", { user_id: "telegram:3" }));
    expect(await frameFor(link, "terminal_refused", "theirs", "telegram:3")).toMatchObject({
      error: { code: "UNAUTHORIZED", message: "this node does not serve telegram:3" },
    });
  });

  it("refuses a terminal past MAX_TERMINALS, chat terminals included", async () => {
    // `cat` prints nothing: its /term answer comes once the (here shortened) wait for output ran out.
    const { link } = await setup({ MAX_TERMINALS: 2 }, { chatTerminalWaits: { startOutputMs: 500 } });
    link.send(open("a"));
    await frameFor(link, "terminal_opened", "a");
    link.send({
      type: "forward",
      id: "f1",
      user_id: USER,
      chat_id: "c1",
      platform: "telegram",
      text: "/term cat",
    });
    expect((await link.inbox.next("forward_response", (f) => f.id === "f1")).text).toContain("· running");
    link.send(open("b"));
    expect(await frameFor(link, "terminal_refused", "b")).toMatchObject({
      error: {
        code: "QUEUE_FULL",
        message: "this host already runs 2 terminals (MAX_TERMINALS); close one first",
      },
    });
  });

  it("answers malformed and oversized terminal frames with BAD_FRAME and stays up", async () => {
    const watch = watchProcessErrors();
    onCleanup(() => watch.stop());
    const { link, host } = await setup();
    const bad = [
      input("t", "x".repeat(65_537)),
      open("../etc"),
      open("t", { cols: 0 }),
      open("t", { rows: 100_000 }),
      { type: "terminal_ack", id: "t", user_id: USER, bytes: -1 },
      { type: "terminal_input", id: "t", data: "no user" },
      { type: "terminal_resize", id: "t", user_id: USER, cols: "80", rows: 24 },
      { type: "terminal_close", id: 7, user_id: USER },
    ];
    for (const frame of bad) {
      link.send(frame);
      const error = await link.inbox.next("error");
      expect(error).toMatchObject({
        code: "BAD_FRAME",
        message: expect.stringMatching(/^invalid 'terminal_/),
      });
    }
    expect(link.inbox.frames.some((f) => f.type.startsWith("terminal_"))).toBe(false);
    expect(host.link.state).toBe("registered");
    link.send(open("ok"));
    await frameFor(link, "terminal_opened", "ok");
    expect(watch.errors).toEqual([]);
  });

  it("closes the console's terminals when the link drops", async () => {
    const { link, router, host } = await setup();
    link.send(open("gone"));
    await frameFor(link, "terminal_opened", "gone");
    link.send(input("gone", "sleep 31.9191\r"));
    await waitFor(() => processRunning("sleep 31.9191"), { message: "the sleep" });
    router.dropAll();
    await waitFor(() => !processRunning("sleep 31.9191"), { message: "the terminal closed with the link" });
    await router.waitForRegistrations(2);
    await host.ready();
    expect(host.terminals.manager.stats().open).toBe(0);
  });

  it("a host that stops tells the router its terminals ended", async () => {
    const { link, host } = await setup();
    link.send(open("bye"));
    await frameFor(link, "terminal_opened", "bye");
    await host.terminals.stop();
    expect(await frameFor(link, "terminal_exit", "bye")).toMatchObject({ reason: "stopping" });
  });
});

describe("terminal flow control over the link", () => {
  it("a flooding terminal with a slow reader stays within its buffer, and chat is answered meanwhile", async () => {
    const window = 256 * 1024;
    const { link, host } = await setup({ TERMINAL_BUFFER_BYTES: window });
    link.send(open("flood"));
    await frameFor(link, "terminal_opened", "flood");
    // The router passes output on slowly: 16 KiB acknowledged every 50 ms (~320 KB/s).
    let received = 0;
    let acked = 0;
    let maxAhead = 0;
    link.socket.on("message", (raw) => {
      const frame = JSON.parse(raw.toString()) as AnyFrame;
      if (frame.type !== "terminal_output") return;
      received += Buffer.byteLength(String(frame.data));
      maxAhead = Math.max(maxAhead, received - acked);
    });
    const acks = setInterval(() => {
      const bytes = Math.min(16 * 1024, received - acked);
      if (bytes <= 0) return;
      acked += bytes;
      link.send({ type: "terminal_ack", id: "flood", user_id: USER, bytes });
    }, 50);
    onCleanup(() => clearInterval(acks));
    link.send(input("flood", "yes flood-31415 | head -c 20000000; echo END\r"));
    await waitFor(() => host.terminals.manager.stats().paused === 1, { message: "the PTY paused" });

    // A chat message on the same link, while the terminal is at its limit.
    link.send({
      type: "forward",
      id: "chat",
      user_id: USER,
      chat_id: "c1",
      platform: "telegram",
      text: "hello",
    });
    const answer = await link.inbox.next("forward_response", (f) => f.id === "chat", 10_000);
    expect(answer.text).toBe("fake-model: hello");
    // Answered while the flood was still held back, not after it drained.
    expect(received).toBeLessThan(20_000_000);
    expect(link.inbox.frames.some((f) => f.type === "terminal_exit" && f.id === "flood")).toBe(false);

    // The reader goes on at its pace until another whole window has passed through it.
    const ackedThen = acked;
    await waitFor(() => acked >= ackedThen + window, { message: "another window read", timeoutMs: 20_000 });
    const stats = host.terminals.manager.stats();
    expect(stats.bufferedBytes).toBeLessThanOrEqual(window);
    expect(stats.peakBufferedBytes).toBeLessThanOrEqual(window);
    expect(maxAhead).toBeLessThanOrEqual(window);
    expect(received).toBeLessThan(acked + window);
    expect(received).toBeLessThan(3_000_000); // held to the reader's pace, far from 20 MB
    expect(processRunning("yes flood-31415")).toBe(true);

    link.send({ type: "terminal_close", id: "flood", user_id: USER });
    expect(await frameFor(link, "terminal_exit", "flood")).toMatchObject({ reason: "closed" });
    expect(processRunning("yes flood-31415")).toBe(false);
  });
});
