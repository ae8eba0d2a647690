import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeAnthropic,
  makeTempDir,
  processRunning,
  startFakeAnthropic,
  waitFor,
} from "@phonework/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatHarness, CLAUDE_BIN, startHarness } from "./chat-harness.ts";

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
  it("/new demo claude fix the typo: runs claude in the project, shows progress, returns its answer verbatim", async () => {
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
  });

  it("a second message resumes the same session: the model sees the earlier turns", async () => {
    const h = await start();
    model.script({ text: "First answer." }, { text: "Second answer." });
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
  });

  it("sessions survive a host restart and resume the same Claude conversation", async () => {
    let h = await start();
    model.script({ text: "Noted." }, { text: "Still here." });
    await h.ask("/new demo claude my favourite colour is green", (t) => t === "Noted.");
    await h.stop();
    h = await start();
    await h.ask("what is my favourite colour?", (t) => t === "Still here.");
    expect(JSON.stringify(model.agentRequests().at(-1)?.messages)).toContain("my favourite colour is green");
  });

  it("a session whose Claude conversation is gone starts fresh and says so", async () => {
    const h = await start();
    model.script({ text: "One." }, { text: "Fresh start." });
    await h.ask("/new demo claude hello", (t) => t === "One.");
    // The conversation disappears (another machine, a cleaned ~/.claude).
    const { rmSync } = await import("node:fs");
    rmSync(join(dir.path, "home", ".claude", "projects"), { recursive: true, force: true });
    const reply = await h.ask("are you there?", (t) => t.includes("Fresh start."));
    expect(reply).toBe(
      "⚠️ The earlier Claude Code conversation was not found on this machine, so this is a fresh one.\n\nFresh start.",
    );
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
