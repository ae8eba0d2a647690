import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeResponses,
  makeTempDir,
  processRunning,
  startFakeResponses,
  type TempDir,
  waitFor,
} from "@phonework/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatHarness, CODEX_BIN, startHarness } from "./chat-harness.ts";

// The real `codex app-server` when its model provider cannot be reached or is slow, and a long
// Codex turn stopped after it moved to the background. Offline against a fake Responses API.

let model: FakeResponses;
let dir: TempDir;
let harness: ChatHarness | undefined;

const codexHome = () => join(dir.path, "codex-home");
const env = () => ({
  ...process.env,
  HOME: join(dir.path, "home"),
  CODEX_HOME: codexHome(),
  OPENAI_API_KEY: "sk-test",
});

/** Whether a process started for this test (CODEX_HOME in its environment) is still running. */
function codexRunning(): boolean {
  const mark = `CODEX_HOME=${codexHome()}\0`;
  return readdirSync("/proc").some((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return false;
    try {
      return readFileSync(`/proc/${entry}/environ`, "utf8").includes(mark);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

async function start(overrides: Record<string, unknown> = {}) {
  harness = await startHarness(
    {
      DATA_DIR: join(dir.path, "data"),
      WORKING_DIR: join(dir.path, "projects"),
      CODEX_BIN,
      DEFAULT_AGENT: "codex",
      CODEX_APPROVAL_POLICY: "never",
      STOP_GRACE_S: 2,
      CODEX_CONNECT_TIMEOUT_S: 2,
      ...overrides,
    },
    env(),
  );
  return harness;
}

const writeCodexConfig = (toml: string) => writeFileSync(join(codexHome(), "config.toml"), toml);

beforeEach(async () => {
  dir = makeTempDir();
  mkdirSync(join(dir.path, "projects", "demo"), { recursive: true });
  mkdirSync(join(dir.path, "home"));
  mkdirSync(codexHome());
  model = await startFakeResponses();
  writeCodexConfig(model.codexConfig());
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await model.close();
  await dir.removeWhenQuiet(); // Codex's helpers may still be flushing into CODEX_HOME
});

/** Stops the harness and waits until no Codex process of this test is left. */
async function stopAndExpectNoCodex(h: ChatHarness) {
  await h.stop();
  harness = undefined;
  await waitFor(() => !codexRunning(), { timeoutMs: 10_000, message: "every codex process to be gone" });
}

describe("Codex and its model provider (real codex app-server, fake model)", () => {
  it("a provider answering 502 to every request: the turn fails within seconds with the provider's error, and Codex stops retrying", async () => {
    // Left alone, Codex would retry this for many minutes ("Reconnecting... n/50").
    writeCodexConfig(model.codexConfig({ streamRetries: 50 }));
    model.fallback = () => ({
      status: 502,
      body: { error: { message: "upstream provider down", type: "server_error" } },
    });
    const h = await start();
    const sentAt = Date.now();
    const reply = await h.ask("/new demo codex hello", (t) => t.startsWith("❌"), 15_000);
    const took = Date.now() - sentAt;
    expect(reply).toMatch(
      /^❌ codex reported an error:\nCodex could not reach its model provider within 2s \(/,
    );
    expect(reply).toContain("upstream provider down");
    expect(reply).toContain(join(codexHome(), "config.toml"));
    expect(took).toBeLessThan(6_000); // 2 s, plus starting the app-server and the thread
    expect(h.progressLines().some((l) => l.startsWith("… retrying: Reconnecting..."))).toBe(true);

    // The same app-server answers the next turn once the provider is back, and the failed turn
    // was interrupted: none of the requests after it is a retry of "hello".
    const failedAfter = model.requests.length;
    model.fallback = () => ({ text: "back again" });
    await h.ask("again", (t) => t === "back again", 30_000);
    const later = model.requests.slice(failedAfter);
    expect(later.length).toBeGreaterThan(0);
    for (const request of later) expect(model.userTexts(request).at(-1)).toBe("again");
    await stopAndExpectNoCodex(h);
  });

  it("a base_url nobody listens on: the turn fails within seconds with the connection error", async () => {
    const gone = await startFakeResponses();
    await gone.close(); // its port now refuses connections
    writeCodexConfig(gone.codexConfig());
    const h = await start();
    const sentAt = Date.now();
    const reply = await h.ask("/new demo codex hello", (t) => t.startsWith("❌"), 15_000);
    expect(Date.now() - sentAt).toBeLessThan(6_000);
    expect(reply).toContain("Codex could not reach its model provider");
    expect(reply).toMatch(/\(Connection failed: [^)]+\)/);
    await stopAndExpectNoCodex(h);
  });

  it("a provider slower than CODEX_CONNECT_TIMEOUT_S to answer is not cut off", async () => {
    // Codex says nothing while it waits for a first byte; only retry errors make a turn unreachable.
    writeCodexConfig(model.codexConfig({ streamRetries: 3 }));
    model.script({ delayMs: 3_000, reply: { text: "slow but here" } });
    const h = await start();
    expect(await h.ask("/new demo codex hello", (t) => !t.startsWith("…"), 30_000)).toBe("slow but here");
  });

  // The trade-off: Codex does not say when a retry got through, so a provider that failed once
  // and is still silent at the deadline counts as unreachable. One that recovers before it is fine.
  it("a provider that fails once and answers the retry is not cut off", async () => {
    writeCodexConfig(model.codexConfig({ streamRetries: 3 }));
    model.script({ status: 502 }, { text: "recovered" });
    const h = await start();
    expect(await h.ask("/new demo codex hello", (t) => !t.startsWith("…"), 30_000)).toBe("recovered");
  });

  it("/stop on a turn that moved to the background: /tasks lists it as stopped, not done", async () => {
    const h = await start({ CODEX_SANDBOX: "danger-full-access", LONG_TURN_S: 2 });
    model.script({
      call: {
        name: "exec_command",
        arguments: { cmd: "python3 -c 'import time; time.sleep(60)' marker-7781" },
      },
    });
    const moved = await h.ask("/new demo codex wait a minute", (t) => t.startsWith("⏳"), 60_000);
    const id = /task #([0-9a-f]+)/.exec(moved)?.[1];
    expect(id).toBeDefined();
    await waitFor(() => processRunning("marker-7781"), { timeoutMs: 60_000, message: "the command to run" });
    expect(await h.ask("/tasks")).toContain(`⏳ #${id} running`);

    await h.ask("/stop", (t) => t.startsWith("⏹️ Stopping session"));
    const notice = await waitFor(() => h.texts().find((t) => t.startsWith(`⏹️ #${id} `)), {
      timeoutMs: 15_000,
      message: "the stopped task's notice",
    });
    expect(notice).toMatch(
      new RegExp(`^⏹️ #${id} stopped in \\d+s — codex · demo: wait a minute\\n\\n⏹️ Stopped\\.$`),
    );
    const list = await h.ask("/tasks");
    expect(list).toContain(`⏹️ #${id} stopped in`);
    expect(list).not.toContain("✅");
    await waitFor(() => !processRunning("marker-7781"), {
      timeoutMs: 10_000,
      message: "the command to be gone",
    });
  });
});
