import { existsSync } from "node:fs";
import { loadConfig } from "@phonework/runtime";
import { createTestLogger, makeTempDir, processRunning, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { HostConfigSchema } from "../src/config/host-config.ts";
import { loadNodePty } from "../src/terminals/pty-module.ts";
import { configSecrets, isDeniedName, terminalEnv } from "../src/terminals/terminal-env.ts";
import { type TerminalLimits, TerminalManager } from "../src/terminals/terminal-manager.ts";
import { TerminalRefusal } from "../src/terminals/terminal-refusal.ts";
import type { TerminalSession } from "../src/terminals/terminal-session.ts";
import { onCleanup } from "./support.ts";

// The terminal manager on real PTYs and real processes: limits, idle close, the whole tree killed
// on close, no secrets in the environment, and output paused, not dropped, when its reader is slow.

const owner = { userId: "u1", chatId: "c1", platform: "t" };

function manager(limits: Partial<TerminalLimits> = {}, env: NodeJS.ProcessEnv = process.env) {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const terminals = new TerminalManager({
    loadPty: loadNodePty,
    workingDir: dir.path,
    env: { ...env, SHELL: "/bin/bash" },
    secretValues: ["the-router-secret-value"],
    limits: { maxTerminals: 4, idleMs: 60_000, bufferBytes: 256 * 1024, ...limits },
    killGraceMs: 300,
    logger: createTestLogger().logger,
  });
  onCleanup(() => terminals.closeAll());
  return { terminals, dir: dir.path };
}

/** Reads everything the terminal prints, acknowledging at once (a reader that keeps up). */
function reader(session: TerminalSession) {
  let text = "";
  const read = () => {
    for (let chunk = session.read(16_384); chunk; chunk = session.read(16_384)) {
      text += chunk;
      session.ack(Buffer.byteLength(chunk));
    }
  };
  session.onReadable(read);
  read();
  return { text: () => text };
}

describe("terminal environment", () => {
  it("denies PhoneWork's secrets by name and by value, and keeps the rest", () => {
    for (const name of [
      "ROUTER_SECRET",
      "JOIN_CODE",
      "OPENAI_API_KEY",
      "METASO_API_KEY",
      "ADMIN_TOKEN",
      "TELEGRAM_BOT_TOKEN",
      "FEISHU_APP_SECRET",
      "FEISHU_ENCRYPT_KEY",
      "GITHUB_TOKEN",
      "DB_PASSWORD",
      "PHONEWORK_CONFIG",
      "router_secret",
    ])
      expect(isDeniedName(name), name).toBe(true);
    for (const name of [
      "PATH",
      "HOME",
      "LANG",
      "SSH_AUTH_SOCK",
      "KEYBOARD",
      "TOKENIZERS_PARALLELISM",
      "SHELL",
    ])
      expect(isDeniedName(name), name).toBe(false);
    const env = terminalEnv({ PATH: "/bin", SAME: "s3cret-value", OPENAI_API_KEY: "k", TERM: "dumb" }, [
      "s3cret-value",
    ]);
    expect(env).toEqual({ PATH: "/bin", TERM: "xterm-256color" });
    expect(
      configSecrets({
        ROUTER_SECRET: "rs",
        OPENAI_API_KEY: "ok",
        OPENAI_MODEL: "m",
        JOIN_CODE: undefined,
        N: 1,
      }),
    ).toEqual(["rs", "ok"]);
  });

  it("`env` in a terminal shows none of them", async () => {
    const { terminals } = manager(
      {},
      {
        ...process.env,
        ROUTER_SECRET: "the-router-secret-value",
        OPENAI_API_KEY: "sk-model-key",
        JOIN_CODE: "join-123456",
        GITHUB_TOKEN: "ghp_token",
        PHONEWORK_CONFIG: "/etc/phonework.yaml",
        COPY_OF_IT: "the-router-secret-value",
        MY_SETTING: "kept",
      },
    );
    const session = await terminals.open({ owner, command: "env", cols: 200, rows: 50 });
    const out = reader(session);
    expect(await session.ended).toEqual({ reason: "exited", code: 0 });
    expect(out.text()).toContain("MY_SETTING=kept");
    expect(out.text()).toContain("TERM=xterm-256color");
    for (const leaked of [
      "ROUTER_SECRET",
      "OPENAI_API_KEY",
      "JOIN_CODE",
      "GITHUB_TOKEN",
      "PHONEWORK_",
      "COPY_OF_IT",
    ])
      expect(out.text()).not.toContain(leaked);
    expect(out.text()).not.toContain("the-router-secret-value");
  });
});

describe("terminal config", () => {
  const load = (env: Record<string, string>) =>
    loadConfig(HostConfigSchema, { env: { ROUTER_SECRET: "s", ...env }, readFile: () => "" }).config;

  it("defaults to 4 terminals, 15 minutes idle and a 256 KiB buffer, and says what is wrong", () => {
    expect(load({})).toMatchObject({
      MAX_TERMINALS: 4,
      TERMINAL_IDLE_S: 900,
      TERMINAL_BUFFER_BYTES: 262_144,
    });
    expect(
      load({ MAX_TERMINALS: "1", TERMINAL_IDLE_S: "0.5", TERMINAL_BUFFER_BYTES: "1048576" }),
    ).toMatchObject({ MAX_TERMINALS: 1, TERMINAL_IDLE_S: 0.5, TERMINAL_BUFFER_BYTES: 1_048_576 });
    expect(() => load({ MAX_TERMINALS: "0" })).toThrow(/MAX_TERMINALS: must be at least 1/);
    expect(() => load({ TERMINAL_IDLE_S: "-1" })).toThrow(/TERMINAL_IDLE_S: must be greater than 0/);
    expect(() => load({ TERMINAL_BUFFER_BYTES: "4096" })).toThrow(
      /TERMINAL_BUFFER_BYTES: must be at least 131072 \(128 KiB\): the PTY is read up to 64 KiB at a time/,
    );
  });
});

describe("terminal limits", () => {
  it("refuses a terminal past MAX_TERMINALS with a clear message, and opens one again once one closed", async () => {
    const { terminals } = manager({ maxTerminals: 2 });
    const first = await terminals.open({ owner, command: "sleep 60", cols: 80, rows: 24 });
    await terminals.open({ owner, command: "sleep 60", cols: 80, rows: 24 });
    const refused = await terminals.open({ owner, command: "true", cols: 80, rows: 24 }).catch((e) => e);
    expect(refused).toBeInstanceOf(TerminalRefusal);
    expect(refused).toMatchObject({
      code: "QUEUE_FULL",
      message: "this host already runs 2 terminals (MAX_TERMINALS); close one first",
    });
    expect(terminals.stats().open).toBe(2);
    await first.close();
    expect(terminals.stats().open).toBe(1);
    await terminals.open({ owner, command: "sleep 60", cols: 80, rows: 24 });
  });

  it("closes a terminal after TERMINAL_IDLE_S without input; input keeps it open", async () => {
    const { terminals } = manager({ idleMs: 600 });
    const session = await terminals.open({ owner, command: "sleep 31.2718", cols: 80, rows: 24 });
    // Opened after it and never typed into: its idle close is the moment the first would have closed.
    const untouched = await terminals.open({ owner, command: "sleep 31.2719", cols: 80, rows: 24 });
    let ended: unknown;
    void session.ended.then((end) => {
      ended = end;
    });
    let idleClosed = false;
    void untouched.ended.then(() => {
      idleClosed = true;
    });
    // Input, a key at a time, each once the one before was echoed, until the untouched one closed.
    const out = reader(session);
    while (!idleClosed) {
      const shown = out.text().length;
      session.write(".");
      await waitFor(() => out.text().length > shown || idleClosed, { message: "the key's echo" });
    }
    expect(await untouched.ended).toEqual({ reason: "idle" });
    expect(processRunning("sleep 31.2719")).toBe(false);
    expect(ended).toBeUndefined();
    expect(processRunning("sleep 31.2718")).toBe(true);
    expect(await session.ended).toEqual({ reason: "idle" });
    expect(processRunning("sleep 31.2718")).toBe(false);
  });

  it("says why when node-pty cannot be loaded", async () => {
    const terminals = new TerminalManager({
      loadPty: async () => {
        throw new Error("Cannot find module 'node-pty'\nRequire stack: …");
      },
      workingDir: "/",
      env: {},
      secretValues: [],
      limits: { maxTerminals: 4, idleMs: 60_000, bufferBytes: 256 * 1024 },
      logger: createTestLogger().logger,
    });
    expect(await terminals.availability()).toEqual({ ok: false, reason: "Cannot find module 'node-pty'" });
    await expect(terminals.open({ owner, cols: 80, rows: 24 })).rejects.toMatchObject({
      code: "INTERNAL",
      message: "terminals are unavailable on this host: Cannot find module 'node-pty'",
    });
  });
});

describe("closing a terminal", () => {
  it("kills the whole tree: jobs in their own process groups and a child that ignores the hangup", async () => {
    const { terminals } = manager();
    const shell = await terminals.open({ owner, cols: 80, rows: 24 });
    const out = reader(shell);
    shell.write("sleep 31.4101 &\r");
    shell.write(`sh -c 'trap "" HUP; exec sleep 31.4102' &\r`);
    shell.write("(sleep 31.4103; true)\r");
    await waitFor(() => ["31.4101", "31.4102", "31.4103"].every((m) => processRunning(`sleep ${m}`)), {
      message: "the jobs running",
    });
    expect(out.text()).toContain("sleep 31.4103");
    expect(existsSync(`/proc/${shell.pid}`)).toBe(true);
    expect(await shell.close()).toEqual({ reason: "closed" });
    for (const marker of ["31.4101", "31.4102", "31.4103"])
      expect(processRunning(`sleep ${marker}`)).toBe(false);
    expect(existsSync(`/proc/${shell.pid}`)).toBe(false);
    expect(terminals.stats().open).toBe(0);
  });

  it("a program that ends by itself takes its leftovers with it", async () => {
    const { terminals } = manager();
    const session = await terminals.open({
      owner,
      command: "sleep 31.5501 & echo started",
      cols: 80,
      rows: 24,
    });
    const out = reader(session);
    expect(await session.ended).toEqual({ reason: "exited", code: 0 });
    expect(out.text()).toContain("started");
    await waitFor(() => !processRunning("sleep 31.5501"), { message: "the leftover sleep killed" });
  });
});

describe("terminal flow control", () => {
  it("pauses the PTY while the reader is behind, holds at most TERMINAL_BUFFER_BYTES, and loses nothing", async () => {
    const bufferBytes = 256 * 1024;
    const { terminals } = manager({ bufferBytes });
    // It lingers after its output until the test has read all of it (a line of input ends it):
    // node-pty drops what is still unread 200 ms after a program exits, which under load says
    // nothing about flow control (see the README's Terminals). Echo off: the line adds no output.
    const session = await terminals.open({
      owner,
      command: "stty -echo; yes | head -c 4000000; read line",
      cols: 80,
      rows: 24,
    });
    // A slow reader: takes what is there, acknowledges 16 KiB every 20 ms (~800 KB/s).
    let received = 0;
    let acked = 0;
    let owed = 0;
    let slow = true;
    const take = () => {
      for (let chunk = session.read(16_384); chunk; chunk = session.read(16_384)) {
        received += Buffer.byteLength(chunk);
        owed += Buffer.byteLength(chunk);
        if (!slow) {
          session.ack(owed);
          acked += owed;
          owed = 0;
        }
      }
    };
    session.onReadable(take);
    take();
    const slowAcks = setInterval(() => {
      const bytes = Math.min(owed, 16_384);
      owed -= bytes;
      acked += bytes;
      if (bytes > 0) session.ack(bytes);
    }, 20);
    onCleanup(() => clearInterval(slowAcks));
    await waitFor(() => session.isPaused, { message: "the PTY paused" });
    // The slow reader goes on until it has taken twice the buffer: paused and resumed meanwhile.
    await waitFor(() => acked >= 2 * bufferBytes, { message: "two buffers read slowly" });
    // The program was held to the reader's pace: never more than the buffer ahead of the acks.
    expect(session.bufferedBytes).toBeLessThanOrEqual(bufferBytes);
    expect(received - acked).toBeLessThanOrEqual(bufferBytes);
    expect(received).toBeLessThan(acked + bufferBytes);
    expect(received).toBeLessThan(2_000_000);
    // Now a reader that keeps up: everything arrives (yes's "y\n" as "y\r\n" through the PTY).
    clearInterval(slowAcks);
    slow = false;
    session.ack(owed);
    acked += owed;
    owed = 0;
    take();
    // 6 MB through a PTY (yes's 4 MB): over twenty buffers, all of it read once the reader keeps up.
    await waitFor(() => received === 6_000_000, { message: "all output", timeoutMs: 60_000 });
    session.write("\r"); // the program may end now: everything it printed has been read
    expect(await session.ended).toEqual({ reason: "exited", code: 0 });
    expect(received).toBe(6_000_000);
    expect(session.peakBufferedBytes).toBeLessThanOrEqual(bufferBytes);
    expect(terminals.stats().peakBufferedBytes).toBeLessThanOrEqual(bufferBytes);
  }, 90_000);
});
