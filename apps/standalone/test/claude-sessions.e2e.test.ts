import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeAnthropic,
  makeTempDir,
  processRunning,
  spawnApp,
  startFakeAnthropic,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatHarness, CLAUDE_BIN, HARNESS_ADMIN_TOKEN, startHarness } from "./chat-harness.ts";

// Coding sessions with the real `claude` CLI, offline against a fake Anthropic Messages API.

let model: FakeAnthropic;
let dir: { path: string; remove: () => void };
let harness: ChatHarness | undefined;

const env = () => ({
  ...process.env,
  HOME: join(dir.path, "home"), // Claude Code keeps its conversations under ~/.claude
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: "sk-ant-test",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
});

async function start(overrides: Record<string, unknown> = {}) {
  harness = await startHarness(
    {
      DATA_DIR: join(dir.path, "data"),
      WORKING_DIR: join(dir.path, "projects"),
      CLAUDE_BIN,
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
  writeFileSync(join(dir.path, "projects", "demo", "README.md"), "# Demo\nThis is teh demo.\n");
  model = await startFakeAnthropic();
});

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
  await model.close();
  dir.remove();
});

describe("Claude Code sessions (real claude CLI, fake model)", () => {
  it("from the terminal chat: /new demo claude fix the typo, then a follow-up that resumes the session", async () => {
    model.script(
      { toolUse: { name: "Bash", input: { command: "sed -i 's/teh/the/' README.md", description: "fix" } } },
      { text: "Fixed the typo in README.md." },
      { text: "Yes: I changed teh to the." },
    );
    const child = spawnApp("standalone", {
      ...env(),
      DATA_DIR: join(dir.path, "data"),
      WORKING_DIR: join(dir.path, "projects"),
      NODE_ID: "laptop",
      CLAUDE_BIN,
      PROGRESS_INTERVAL_S: "0",
    });
    child.child.stdin?.end("/new demo claude fix the typo\nwhat did you change?\n");
    expect((await child.exited).code).toBe(0);
    const lines = child.stdout().trimEnd().split("\n");
    // Progress lines interleave as they come; the answers arrive in order, last.
    expect([...lines].sort()).toEqual(
      [
        "… 🆕 Session #1: claude in demo. Your messages now go to it (/use off to talk to the assistant).",
        "… queued behind 1 turn(s) in session 1",
        "… running: sed -i 's/teh/the/' README.md",
        // The terminal has no threads: the tool's result is a line of its own (details inline).
        "↳ (Bash completed with no output)",
        "Fixed the typo in README.md.",
        "Yes: I changed teh to the.",
      ].sort(),
    );
    expect(lines.slice(-2)).toEqual(["Fixed the typo in README.md.", "Yes: I changed teh to the."]);
    expect(readFileSync(join(dir.path, "projects", "demo", "README.md"), "utf8")).toContain(
      "This is the demo.",
    );
    expect(JSON.stringify(model.agentRequests().at(-1)?.messages)).toContain("fix the typo");
    // A standalone process and two runs of the claude CLI: a busy machine takes well over 30 s.
  }, 90_000);

  // One claude run, then what the node reports of the session it left behind (each claude run is
  // about a CPU-second: the session is reused rather than started again for the report).
  it("/new demo claude fix the typo: runs claude in the project, shows progress, returns its answer verbatim; the node reports its sessions to the router: /nodes and /health show them", async () => {
    const h = await start();
    model.script(
      {
        toolUse: {
          name: "Bash",
          input: { command: "sed -i 's/teh/the/' README.md && cat README.md", description: "fix" },
        },
      },
      (req) => ({ text: `Fixed the typo.\n\n\`\`\`md\n${model.toolResults(req).at(-1)}\n\`\`\`` }),
    );
    const reply = await h.ask("/new demo claude fix the typo", (t) => t.startsWith("Fixed"));
    expect(reply).toBe("Fixed the typo.\n\n```md\n# Demo\nThis is the demo.\n```");
    expect(readFileSync(join(dir.path, "projects", "demo", "README.md"), "utf8")).toBe(
      "# Demo\nThis is the demo.\n",
    );
    expect(h.progressLines()).toEqual([
      "… 🆕 Session #1: claude in demo. Your messages now go to it (/use off to talk to the assistant).",
      "… running: sed -i 's/teh/the/' README.md && cat README.md",
    ]);
    expect(model.userTexts(model.agentRequests()[0])).toContain("fix the typo");

    // The session, as the node reports it to the router.
    const nodes = await h.ask("/nodes");
    expect(nodes).toMatch(/^→ home-pc\s+\[ACTIVE\]\s+sessions=1\s+online/m);
    expect(nodes).toMatch(/^ {6}#1 claude demo \(active\)$/m);
    const health = (await (
      await fetch(`${h.app.router.nodeUrl.replace(/^ws/, "http").replace("/ws/node", "")}/health`, {
        headers: { Authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` },
      })
    ).json()) as {
      nodes: Array<{ sessions: Array<Record<string, unknown>> }>;
    };
    expect(health.nodes[0]?.sessions).toEqual([
      expect.objectContaining({
        id: "1",
        agent: "claude",
        project: "demo",
        busy: false,
        user_id: "memory:me", // as the router forwards it: qualified by the adapter's name
        active: true,
      }),
    ]);
    // Leaving the session (/use with no id) is reported too: routing must not follow a session the user left.
    await h.ask("/use off");
    await waitFor(() => h.app.router.registry.get("home-pc")?.sessions[0]?.active === false);
  });

  it("a second message resumes the same session, and so does one after a host restart: the model sees the earlier turns; once its Claude conversation is gone it starts fresh and says so", async () => {
    let h = await start();
    model.script(
      { text: "First answer." },
      { text: "Second answer." },
      { text: "Still here." },
      { text: "Fresh start." },
    );
    await h.ask("/new demo claude remember the number 42", (t) => t === "First answer.");
    await h.ask("what number did I say?", (t) => t === "Second answer.");
    const second = model.agentRequests().at(-1);
    expect(model.userTexts(second)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("remember the number 42"),
        expect.stringContaining("what number did I say?"),
      ]),
    );
    expect(JSON.stringify(second?.messages)).toContain("First answer.");
    const sessions = await h.ask("/sessions");
    expect(sessions).toMatch(/^Sessions:\n→ #1 claude · demo \(idle \d+s\)$/);
    // Each turn's `result` (usage and total_cost_usd) reaches /usage, by project.
    const usage = await h.ask("/usage", (t) => t.startsWith("📊"));
    // The fake's 10 in, 10 out a call; the cost is Claude Code's own.
    expect(usage).toMatch(/^ {2}coding sessions · demo\s+20 in · 20 out · \$0\.\d+ · 2 calls$/m);
    // The session and its Claude conversation outlive the process.
    await h.stop();
    h = await start();
    await h.ask("and after the restart?", (t) => t === "Still here.");
    const third = model.agentRequests().at(-1);
    expect(JSON.stringify(third?.messages)).toContain("remember the number 42");
    expect(JSON.stringify(third?.messages)).toContain("Second answer.");

    // The conversation disappears (another machine, a cleaned ~/.claude).
    rmSync(join(dir.path, "home", ".claude", "projects"), { recursive: true, force: true });
    const reply = await h.ask("are you there?", (t) => t.includes("Fresh start."));
    expect(reply).toBe(
      "⚠️ The earlier Claude Code conversation was not found on this machine, so this is a fresh one.\n\nFresh start.",
    );
    // Four turns of the claude CLI and two starts: a busy machine takes over 30 s.
  }, 90_000);

  it("eleven queued turns on one host: the eleventh gets QUEUE_FULL at once; a stop cancels the rest at once", async () => {
    const h = await start({ MAX_PENDING: 10 });
    model.script({ delayMs: 60_000, reply: { text: "slow" } });
    await h.ask("/new demo claude", (t) => t.startsWith("🆕"));
    for (let i = 1; i <= 11; i++) h.chat.receive({ userId: "me", text: `turn ${i}` });
    const busy = await waitFor(() => h.texts().find((t) => t.startsWith("🚦")));
    expect(busy).toBe('🚦 Node "home-pc" is busy: queue full (max 10). Try again in a moment.');
    expect(h.texts().filter((t) => t.startsWith("🚦"))).toHaveLength(1);
    expect(h.app.host.sessions.pendingTurns).toBe(10);
    // Stopping cancels the held turn and the queued ones: each is answered, and the stop does not
    // wait out the router's 5-s drain for answers the model holds for a minute.
    const stopping = Date.now();
    await h.stop();
    expect(h.texts().filter((t) => t === "⏹️ Cancelled.")).toHaveLength(10);
    expect(Date.now() - stopping).toBeLessThan(5_000); // the drain would last 5 s
  });

  it("a turn that runs long continues as a background task and the answer arrives when it is done", async () => {
    const h = await start({ LONG_TURN_S: 0.5 });
    model.script({ delayMs: 1500, reply: { text: "```py\nprint('done')\n```" } });
    const first = await h.ask("/new demo claude a slow job");
    expect(first).toMatch(/^⏳ This is taking a while \(over 0s\), so it continues as task #([0-9a-f]{6})\./);
    const id = /task #([0-9a-f]{6})/.exec(first)?.[1];
    expect(await h.ask("/tasks")).toMatch(new RegExp(`⏳ #${id} running \\ds — claude · demo: a slow job`));
    const done = await waitFor(() => h.texts().find((t) => t.startsWith(`✅ #${id} done`)));
    expect(done).toMatch(
      new RegExp(
        `^✅ #${id} done in \\ds — claude · demo: a slow job\n\n\`\`\`py\nprint\\('done'\\)\n\`\`\`$`,
      ),
    );
  });

  it("/stop while Claude runs a long command kills the command too", async () => {
    const h = await start();
    model.script({
      toolUse: {
        name: "Bash",
        input: { command: "python3 -c 'import time; time.sleep(60)' marker-9917", description: "wait" },
      },
    });
    h.chat.receive({ userId: "me", text: "/new demo claude wait for a minute" });
    await waitFor(() => processRunning("import time; time.sleep(60)"), { message: "the command to run" });
    await h.ask("/stop", (t) => t.startsWith("⏹️ Stopping session #1"));
    await waitFor(() => h.texts().includes("⏹️ Stopped."), { timeoutMs: 10_000 });
    await waitFor(() => !processRunning("marker-9917"), { message: "no process left", timeoutMs: 10_000 });
  });

  it("the assistant starts a session when asked in plain words, and passes the agent's answer through verbatim", async () => {
    const openai = await startFakeOpenAI();
    try {
      const h = await start({ OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk" });
      openai.script({
        toolCalls: [
          {
            name: "coding_session",
            arguments: { action: "start", project: "demo", agent: "claude", prompt: "explain README.md" },
          },
        ],
      });
      model.script({ text: "README.md says:\n```md\n# Demo\n```" });
      const reply = await h.ask("ask claude to explain the readme in my demo project", (t) =>
        t.startsWith("README"),
      );
      expect(reply).toBe("README.md says:\n```md\n# Demo\n```");
      expect(openai.requests).toHaveLength(1); // no second model call to paraphrase the answer
      expect(await h.ask("/sessions")).toMatch(/^Sessions:\n→ #1 claude · demo/);
    } finally {
      await openai.close();
    }
  });

  it("run_background takes a coding prompt: the task id comes back at once, the full answer when done", async () => {
    const openai = await startFakeOpenAI();
    try {
      const h = await start({ OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "sk" });
      model.script({ delayMs: 500, reply: { text: "All 12 tests pass.\n```\n12 passed\n```" } });
      await h.ask("/new demo claude", (t) => t.startsWith("🆕"));
      await h.ask("/use off");
      openai.script(
        {
          toolCalls: [
            { name: "run_background", arguments: { prompt: "run the tests", description: "test run" } },
          ],
        },
        (req) => ({ text: openai.toolResults(req).at(-1) ?? "" }),
      );
      const started = await h.ask("have claude run the tests in the background");
      const id = /Task #([0-9a-f]{6}) started: test run/.exec(started)?.[1];
      expect(id, started).toBeDefined();
      const done = await waitFor(() => h.texts().find((t) => t.startsWith(`✅ #${id} done`)));
      expect(done).toMatch(/— test run\n\nAll 12 tests pass\.\n```\n12 passed\n```$/);
    } finally {
      await openai.close();
    }
  });

  it("/stop during a long turn ends it within seconds and leaves no process behind", async () => {
    const h = await start();
    model.script({ delayMs: 60_000, reply: { text: "too late" } });
    h.chat.receive({ userId: "me", text: "/new demo claude think very hard about marker-7731" });
    await waitFor(() => model.agentRequests().length === 1, { message: "claude to be waiting on the model" });
    expect(processRunning("marker-7731")).toBe(true);
    const stopped = Date.now();
    await h.ask("/stop", (t) => t.startsWith("⏹️ Stopping session #1"));
    await waitFor(() => h.texts().includes("⏹️ Stopped."), { timeoutMs: 10_000 });
    await waitFor(() => !processRunning("marker-7731"), {
      message: "no claude process left",
      timeoutMs: 10_000,
    });
    expect(Date.now() - stopped).toBeLessThan(10_000);
  });
});
