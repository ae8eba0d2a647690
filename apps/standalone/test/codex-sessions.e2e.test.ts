import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeResponses,
  killProcesses,
  makeTempDir,
  processRunning,
  repoRoot,
  startFakeResponses,
  type TempDir,
  waitFor,
} from "@phonework/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatHarness, CODEX_BIN, startHarness } from "./chat-harness.ts";

const FAKE_CODEX = join(repoRoot, "packages", "testkit", "bin", "fake-codex-app-server.mjs");

// Coding sessions with the real `codex app-server`, offline against a fake Responses API.

let model: FakeResponses;
let dir: TempDir;
let harness: ChatHarness | undefined;

const env = () => ({
  ...process.env,
  HOME: join(dir.path, "home"),
  CODEX_HOME: join(dir.path, "codex-home"),
  OPENAI_API_KEY: "sk-test",
});

async function start(overrides: Record<string, unknown> = {}) {
  harness = await startHarness(
    {
      DATA_DIR: join(dir.path, "data"),
      WORKING_DIR: join(dir.path, "projects"),
      CODEX_BIN,
      DEFAULT_AGENT: "codex",
      STOP_GRACE_S: 2,
      ...overrides,
    },
    env(),
  );
  return harness;
}

beforeEach(async () => {
  dir = makeTempDir();
  mkdirSync(join(dir.path, "projects", "demo"), { recursive: true });
  mkdirSync(join(dir.path, "home"));
  mkdirSync(join(dir.path, "codex-home"));
  writeFileSync(join(dir.path, "projects", "demo", "README.md"), "# Demo\nThis is teh demo.\n");
  model = await startFakeResponses();
  writeFileSync(join(dir.path, "codex-home", "config.toml"), model.codexConfig());
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await model.close();
  await dir.removeWhenQuiet(); // Codex's helpers may still be flushing into CODEX_HOME
});

describe("Codex sessions (real codex app-server, fake model)", () => {
  it("/new demo codex: runs a shell command through Codex and returns its answer; the next message resumes the thread", async () => {
    const h = await start({ CODEX_APPROVAL_POLICY: "never", CODEX_SANDBOX: "danger-full-access" });
    model.script(
      {
        call: { name: "exec_command", arguments: { cmd: "sed -i 's/teh/the/' README.md && cat README.md" } },
      },
      (req) => ({ text: `Fixed:\n${model.toolOutputs(req).at(-1)}` }),
      { text: "Second answer." },
    );
    const reply = await h.ask("/new demo codex fix the typo", (t) => t.startsWith("Fixed:"), 60_000);
    expect(reply).toContain("This is the demo.");
    expect(readFileSync(join(dir.path, "projects", "demo", "README.md"), "utf8")).toBe(
      "# Demo\nThis is the demo.\n",
    );
    expect(h.progressLines().some((l) => l.startsWith("… running: ") && l.includes("sed -i"))).toBe(true);

    await h.ask("and now?", (t) => t === "Second answer.", 60_000);
    const last = model.requests.at(-1);
    expect(model.userTexts(last).join("\n")).toContain("fix the typo");
    expect(model.userTexts(last).at(-1)).toContain("and now?");
    // Codex's token counts (the fake's 10 in, 5 out a response) reach /usage, by project: the three
    // responses the two turns needed at least (a fourth may arrive after the second answer).
    const counted = (usage: string) => {
      const line = /^ {2}coding sessions · demo\s+(\d+) in · (\d+) out · 2 calls$/m.exec(usage);
      return line ? { in: Number(line[1]), out: Number(line[2]) } : undefined;
    };
    let sums: { in: number; out: number } | undefined;
    await waitFor(
      async () => {
        sums = counted(await h.ask("/usage", (t) => t.startsWith("📊")));
        return sums !== undefined && sums.in >= 30;
      },
      { message: "/usage to count the turns' responses", timeoutMs: 20_000, intervalMs: 200 },
    );
    // Every counted response is the fake's 10 in and 5 out: in and out name the same count, at
    // least the three the turns needed and never more than the model gave (Codex repeats a usage
    // report now and then: counted once).
    const responses = Math.floor((sums?.in ?? 0) / 10);
    expect(sums).toEqual({ in: 10 * responses, out: 5 * responses });
    expect(responses).toBeGreaterThanOrEqual(3);
    expect(responses).toBeLessThanOrEqual(model.requests.length);
  });

  it("an approval request reaches the chat and /approve lets the turn finish", async () => {
    const h = await start({ CODEX_APPROVAL_POLICY: "untrusted", CODEX_SANDBOX: "danger-full-access" });
    model.script({ call: { name: "exec_command", arguments: { cmd: "touch approved.txt" } } }, (req) => ({
      text: `done: ${model.toolOutputs(req).at(-1) ?? ""}`,
    }));
    h.chat.receive({ userId: "me", text: "/new demo codex create the file" });
    const ask = await waitFor(() => h.texts().find((t) => t.startsWith("🔐")), { timeoutMs: 60_000 });
    expect(ask).toMatch(/^🔐 Codex in demo asks to run: .*touch approved\.txt/);
    const id = /\/approve ([0-9a-f]{4})/.exec(ask)?.[1] ?? "";
    expect(await h.ask(`/approve ${id}`)).toBe(`✅ Approved ${id}.`);
    await waitFor(() => h.texts().find((t) => t.startsWith("done:")), { timeoutMs: 60_000 });
    expect(readFileSync(join(dir.path, "projects", "demo", "approved.txt"), "utf8")).toBe("");
  });

  it("an unanswered approval request is declined after the timeout, and the user is told", async () => {
    const h = await start({
      CODEX_APPROVAL_POLICY: "untrusted",
      CODEX_SANDBOX: "danger-full-access",
      APPROVAL_TIMEOUT_S: 0.5,
    });
    model.script({ call: { name: "exec_command", arguments: { cmd: "touch never.txt" } } }, (req) => ({
      text: `the command was not run: ${model.toolOutputs(req).at(-1) ?? ""}`,
    }));
    h.chat.receive({ userId: "me", text: "/new demo codex create the file" });
    await waitFor(() => h.texts().find((t) => t.startsWith("⌛ Approval")), { timeoutMs: 60_000 });
    await waitFor(() => h.texts().find((t) => t.startsWith("the command was not run")), {
      timeoutMs: 60_000,
    });
    expect(() => readFileSync(join(dir.path, "projects", "demo", "never.txt"))).toThrow();
  });

  it("/stop during a long command ends the turn within seconds and leaves no process behind", async () => {
    const h = await start({ CODEX_APPROVAL_POLICY: "never", CODEX_SANDBOX: "danger-full-access" });
    model.script({
      call: {
        name: "exec_command",
        arguments: { cmd: "python3 -c 'import time; time.sleep(60)' marker-5521" },
      },
    });
    h.chat.receive({ userId: "me", text: "/new demo codex wait a minute" });
    await waitFor(() => processRunning("marker-5521"), { timeoutMs: 60_000, message: "the command to run" });
    const stoppedAt = Date.now();
    await h.ask("/stop", (t) => t.startsWith("⏹️ Stopping session"));
    await waitFor(() => h.texts().includes("⏹️ Stopped."), { timeoutMs: 15_000 });
    await waitFor(() => !processRunning("marker-5521"), {
      timeoutMs: 10_000,
      message: "the command to be gone",
    });
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);
  });

  it("sessions survive a host restart: the thread is resumed in a new app-server", async () => {
    let h = await start({ CODEX_APPROVAL_POLICY: "never" });
    model.script({ text: "Noted." }, { text: "Green." });
    await h.ask("/new demo codex my favourite colour is green", (t) => t === "Noted.", 60_000);
    await h.stop();
    h = await start({ CODEX_APPROVAL_POLICY: "never" });
    await h.ask("what is my favourite colour?", (t) => t === "Green.", 60_000);
    expect(model.userTexts(model.requests.at(-1)).join("\n")).toContain("my favourite colour is green");
  });

  it("a dead app-server is restarted on the next turn", async () => {
    const h = await start({ CODEX_APPROVAL_POLICY: "never" });
    model.script({ text: "one" }, { text: "two" });
    await h.ask("/new demo codex first", (t) => t === "one", 60_000);
    const codexHome = join(dir.path, "codex-home");
    const killed = killProcesses(
      (cmdline, environ) => cmdline.includes("app-server") && environ.includes(codexHome),
    );
    expect(killed).toBeGreaterThan(0);
    await h
      .ask("second", (t) => t === "two", 20_000)
      .catch((e) => {
        throw new Error(
          `${e.message}; texts=${JSON.stringify(h.texts())}; requests=${model.requests.length}`,
        );
      });
  });

  // The real app-server always honours turn/interrupt and does not crash on cue, so these two
  // use a stand-in that ignores the interrupt or dies mid-turn.
  it("an app-server that ignores turn/interrupt is restarted after the deadline, and the turn ends", async () => {
    const h = await startHarness(
      {
        DATA_DIR: join(dir.path, "data"),
        WORKING_DIR: join(dir.path, "projects"),
        CODEX_BIN: FAKE_CODEX,
        DEFAULT_AGENT: "codex",
        STOP_GRACE_S: 0.5,
      },
      { ...env(), FAKE_CODEX_MODE: "hang" },
    );
    harness = h;
    h.chat.receive({ userId: "me", text: "/new demo codex build it" });
    await waitFor(() => h.progressLines().includes("… running: make build"));
    expect(processRunning(FAKE_CODEX)).toBe(true);
    await h.ask("/stop", (t) => t.startsWith("⏹️ Stopping session"));
    await waitFor(() => h.texts().includes("⏹️ Stopped."), { timeoutMs: 5000 });
    await waitFor(() => !processRunning(FAKE_CODEX), { message: "the stuck app-server to be killed" });
  });

  it("an app-server that dies mid-turn: the user is told, and the next turn starts a new one", async () => {
    const h = await startHarness(
      {
        DATA_DIR: join(dir.path, "data"),
        WORKING_DIR: join(dir.path, "projects"),
        CODEX_BIN: FAKE_CODEX,
        DEFAULT_AGENT: "codex",
      },
      { ...env(), FAKE_CODEX_MODE: "crash" },
    );
    harness = h;
    const reply = await h.ask("/new demo codex build it", (t) => t.startsWith("❌"));
    expect(reply).toMatch(/^❌ codex reported an error:\n.*exited \(code 3\)/);
    const again = await h.ask("try again", (t) => t.startsWith("❌"));
    expect(again).toMatch(/exited \(code 3\)/); // a fresh app-server ran the turn (and crashed on cue again)
  });

  it("per-turn model and effort overrides reach the model", async () => {
    const h = await start({ CODEX_APPROVAL_POLICY: "never" });
    model.script({ text: "ok" }, { text: "ok again" });
    await h.ask("/new demo codex hello", (t) => t === "ok", 60_000);
    expect(await h.ask("/model gpt-5-codex high")).toBe(
      "Session #1 will use model gpt-5-codex with high effort.",
    );
    await h.ask("again", (t) => t === "ok again", 60_000);
    const last = model.requests.at(-1);
    expect(last?.model).toBe("gpt-5-codex");
    expect(last?.reasoning?.effort).toBe("high");
  });
});
