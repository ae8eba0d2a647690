import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MemoryChatAdapter } from "@phonework/router";
import {
  type FakeMcp,
  type FakeOpenAI,
  initGitRepo,
  makeTempDir,
  processRunning,
  startFakeMcp,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Standalone } from "../src/standalone.ts";
import { type ChatHarness, startHarness } from "./chat-harness.ts";

// The assistant over the whole path, each behaviour as the user meets it:
// chat adapter → router → (real socket) → host → fake OpenAI-compatible model → real tool → reply.
// First what it answers and which tool it takes; then how a conversation behaves.

let model: FakeOpenAI;
let mcp: FakeMcp;
let dir: { path: string; remove: () => void };
let workingDir: string;
let app: Standalone | undefined;
let chat: MemoryChatAdapter;
let harness: ChatHarness;

async function start(overrides: Record<string, unknown> = {}) {
  harness = await startHarness({
    DATA_DIR: join(dir.path, "data"),
    WORKING_DIR: workingDir,
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "sk-test",
    OPENAI_MODEL: "glm-4.7",
    METASO_API_KEY: "mk-test",
    METASO_MCP_URL: mcp.url,
    ...overrides,
  });
  chat = harness.chat;
  app = harness.app;
}

/** Sends a message as the user and waits for the reply that satisfies `match`. */
const ask = (text: string, match?: (reply: string) => boolean) => harness.ask(text, match);

beforeEach(async () => {
  dir = makeTempDir();
  workingDir = join(dir.path, "projects");
  mkdirSync(join(workingDir, "todo_app"), { recursive: true });
  writeFileSync(join(workingDir, "todo_app", "app.py"), "print('todo')\n");
  initGitRepo(join(workingDir, "todo_app"));
  writeFileSync(join(workingDir, "todo_app", "new_file.txt"), "x");
  mkdirSync(join(workingDir, "audit"));
  writeFileSync(
    join(workingDir, "audit", "abc123.jsonl"),
    `${Array.from({ length: 120 }, (_, i) => `{"event":${i + 1}}`).join("\n")}\n`,
  );
  writeFileSync(join(workingDir, "sessions.json"), '{"sessions":[{"id":"s1"}]}');
  model = await startFakeOpenAI({ apiKey: "sk-test" });
  mcp = await startFakeMcp({ apiKey: "mk-test" });
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await model.close();
  await mcp.close();
  dir.remove();
});

/** The model's second step: show the user what the tool returned. */
const echoToolResult = (prefix: string) => (req: Parameters<FakeOpenAI["toolResults"]>[0]) => ({
  text: `${prefix}\n${model.toolResults(req).at(-1)}`,
});

describe("the assistant answers with the right tool", () => {
  it('"what is a Python generator?" is answered directly, no tool call', async () => {
    await start();
    model.script({ text: "A generator is a function that uses `yield` to produce values lazily." });
    const reply = await ask("what is a Python generator?");
    expect(reply).toBe("A generator is a function that uses `yield` to produce values lazily.");
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.model).toBe("glm-4.7");
    expect(model.requests[0]?.messages[0]?.content).toContain("answer directly from your own knowledge");
    expect(model.requests[0]?.messages.some((m) => m.role === "tool")).toBe(false);
  });

  it('"check git status in todo_app" runs the shell tool in the real repo', async () => {
    await start();
    model.script(
      {
        toolCalls: [
          { name: "run_shell", arguments: { command: "git status --short --branch", cwd: "todo_app" } },
        ],
      },
      echoToolResult("Here is the status:"),
    );
    const reply = await ask("check git status in todo_app");
    expect(reply).toContain("## main");
    expect(reply).toContain("?? new_file.txt");
    // The progress message showed the command, and was marked done when the answer came.
    expect(chat.textsFor("me")).toContain("… running: git status --short --branch\n✅ done");
  });

  it('"rm -rf /" is blocked by the safety guard and nothing runs', async () => {
    await start();
    model.script(
      { toolCalls: [{ name: "run_shell", arguments: { command: "touch ran.txt && rm -rf /" } }] },
      echoToolResult("I could not do that:"),
    );
    const reply = await ask("rm -rf /");
    expect(reply).toContain(
      "refused: this command looks destructive (recursive delete of / or the home directory)",
    );
    expect(existsSync(join(workingDir, "ran.txt"))).toBe(false);
    const direct = await ask("/shell touch ran.txt; mkfs.ext4 /tmp/phonework-none");
    expect(direct).toMatch(/^❌ refused: this command looks destructive \(formatting a filesystem/);
    expect(existsSync(join(workingDir, "ran.txt"))).toBe(false);
  });

  it('"show me the last 50 lines of audit/abc123.jsonl" returns them', async () => {
    await start();
    model.script(
      {
        toolCalls: [
          { name: "file_ops", arguments: { action: "read", path: "audit/abc123.jsonl", tail_lines: 50 } },
        ],
      },
      echoToolResult("The last 50 lines:"),
    );
    const reply = await ask("show me the last 50 lines of audit/abc123.jsonl");
    const lines = reply.split("\n").filter((l) => l.startsWith('{"event"'));
    expect(lines).toHaveLength(50);
    expect(lines[0]).toBe('{"event":71}');
    expect(lines.at(-1)).toBe('{"event":120}');
  });

  it('"send me the sessions.json file" delivers the file to the chat', async () => {
    await start();
    model.script(
      { toolCalls: [{ name: "file_ops", arguments: { action: "send", path: "sessions.json" } }] },
      { text: "Sent!" },
    );
    await ask("send me the sessions.json file", (t) => t === "Sent!");
    const file = chat.sent.find((m) => m.file)?.file;
    expect(file?.name).toBe("sessions.json");
    expect(file?.mimeType).toBe("application/json");
    expect(file?.data.toString()).toBe('{"sessions":[{"id":"s1"}]}');
  });

  it("a long task in the background replies at once and notifies on completion", async () => {
    await start();
    model.script(
      {
        toolCalls: [
          {
            name: "run_background",
            arguments: { command: "sleep 1; echo build ok", description: "long build" },
          },
        ],
      },
      echoToolResult("Started."),
    );
    const reply = await ask("run the long build in the background");
    const id = /Task #([0-9a-f]{6}) started/.exec(reply)?.[1];
    expect(id).toBeDefined();
    expect(chat.textsFor("me").some((t) => t.startsWith("✅ Task"))).toBe(false); // replied before it finished
    const notice = await waitFor(() => chat.textsFor("me").find((t) => t.startsWith(`✅ Task #${id} done`)));
    expect(notice).toMatch(new RegExp(`^✅ Task #${id} done \\(1s\\)\\nlong build\\n\\nbuild ok`));
  });

  it("/tasks lists the running task with its elapsed time", async () => {
    await start();
    model.script(
      { toolCalls: [{ name: "run_background", arguments: { command: "sleep 3", description: "slow job" } }] },
      { text: "ok" },
    );
    await ask("start the slow job", (t) => t === "ok");
    const list = await ask("/tasks");
    expect(list).toMatch(/^Tasks:\n⏳ #[0-9a-f]{6} running \ds — slow job$/);
  });

  it('"Python 3.13 有哪些新特性?" — web ask returns an answer from Metaso', async () => {
    await start();
    model.script(
      { toolCalls: [{ name: "web", arguments: { action: "ask", query: "Python 3.13 有哪些新特性?" } }] },
      echoToolResult("据秘塔:"),
    );
    const reply = await ask("Python 3.13 有哪些新特性?");
    expect(reply).toBe("据秘塔:\nAnswer about: Python 3.13 有哪些新特性?");
    expect(mcp.calls).toEqual([{ name: "metaso_chat", arguments: { message: "Python 3.13 有哪些新特性?" } }]);
  });

  it('"帮我读取这个URL: https://example.com" — the page comes back as markdown', async () => {
    await start();
    model.script(
      { toolCalls: [{ name: "web", arguments: { action: "fetch", url: "https://example.com" } }] },
      echoToolResult("内容:"),
    );
    const reply = await ask("帮我读取这个URL: https://example.com");
    expect(reply).toContain("# Example Domain");
    expect(mcp.calls[0]).toEqual({
      name: "metaso_web_reader",
      arguments: { url: "https://example.com", format: "markdown" },
    });
  });
});

describe("a conversation with the assistant", () => {
  it("a host restarted mid-conversation continues with the same history", async () => {
    await start();
    await ask("my name is Ada");
    await app?.stop();
    await start();
    await ask("what is my name?");
    const messages = model.requests.at(-1)?.messages ?? [];
    expect(messages.map((m) => m.content)).toEqual([
      expect.stringContaining("PhoneWork assistant"),
      "my name is Ada",
      "fake-model: my name is Ada",
      "what is my name?",
    ]);
  });

  it("one message at a time per user: the second waits for the first, in order", async () => {
    await start();
    model.script({ delayMs: 400, reply: { text: "first answer" } }, { text: "second answer" });
    chat.receive({ userId: "me", text: "first" });
    chat.receive({ userId: "me", text: "second" });
    await waitFor(() => chat.textsFor("me").includes("second answer"));
    expect(chat.textsFor("me")).toEqual(["first answer", "second answer"]);
    // The second request was made after the first turn was recorded.
    expect(model.requests[1]?.messages.map((m) => m.content).slice(1)).toEqual([
      "first",
      "first answer",
      "second",
    ]);
  });

  it("/stop cancels the running turn and kills its command", async () => {
    await start();
    model.script({ toolCalls: [{ name: "run_shell", arguments: { command: "sleep 41.41", timeout: 100 } }] });
    chat.receive({ userId: "me", text: "sleep for a while" });
    await waitFor(() => chat.textsFor("me").includes("… running: sleep 41.41"));
    await waitFor(() => processRunning("sleep 41.41"), { message: "the command to start" });
    const stopped = await ask("/stop", (t) => t.startsWith("⏹️ Stopping"));
    expect(stopped).toBe("⏹️ Stopping your running request.");
    await waitFor(() => chat.textsFor("me").includes("⏹️ Stopped."));
    await waitFor(() => !processRunning("sleep 41.41"), { message: "the sleep to be killed" });
  });

  it("without METASO_API_KEY the web tool is not offered, and a call to it gets a clear answer", async () => {
    await start({ METASO_API_KEY: undefined });
    model.script(
      { toolCalls: [{ name: "web", arguments: { action: "search", query: "x" } }] },
      echoToolResult(""),
    );
    const reply = await ask("search the web for x");
    expect(model.toolNames(model.requests[0])).toEqual([
      "run_shell",
      "file_ops",
      "run_background",
      "task_status",
      "coding_session",
      "schedule",
      "list_scheduled",
      "cancel_scheduled",
      "delegate",
      "plan_status",
      "skill",
      "memory",
    ]);
    expect(reply).toContain("web search is not configured on this node (set METASO_API_KEY on the host)");
  });

  it("/shell runs a command directly, without the model", async () => {
    await start();
    expect(await ask("/shell echo hello from the shell")).toContain("hello from the shell");
    expect(model.requests).toHaveLength(0);
  });

  it("the router's /help includes the host's commands", async () => {
    await start();
    const help = await ask("/help");
    expect(help).toContain("/nodes");
    expect(help).toContain("On home-pc:");
    expect(help).toMatch(/^\/shell <command>\s+— run a shell command directly \(no AI\)$/m);
    expect(help).toContain("/tasks");
    expect(help).toContain(
      "Assistant tools: run_shell, file_ops, run_background, task_status, coding_session, schedule, list_scheduled, cancel_scheduled, web",
    );
  });
});
