import { join } from "node:path";
import type { MemoryChatAdapter } from "@phonework/router";
import {
  type ChatRequest,
  delegateCall,
  type FakeOpenAI,
  kindOf,
  makeTempDir,
  type Reply,
  startFakeOpenAI,
  waitFor,
  workerJson,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatHarness, startHarness } from "./chat-harness.ts";

// What model calls cost, over the whole path (memory chat → router → real socket → host → fake
// model): /usage's exact totals after turns and a plan, the usage line only where asked, the daily
// limit ending a runaway turn and refusing the next (commands still answered), a plan stopped at
// PLAN_TOKEN_LIMIT, and strangers and forged usage blocks. One world; each scenario its own user.

let model: FakeOpenAI;
let dir: { path: string; remove: () => void };
let harness: ChatHarness;
let chat: MemoryChatAdapter;

const PRICES = JSON.stringify({ "fake-model": { input: 1, cached: 0.5, output: 2 } });
const settings = (dataDir: string) => ({
  DATA_DIR: dataDir,
  WORKING_DIR: dir.path,
  OPENAI_BASE_URL: model.url,
  OPENAI_API_KEY: "sk-test",
  OPENAI_MODEL: "fake-model",
  OPENAI_MAX_RETRIES: 0,
  MODEL_PRICES: PRICES,
  TIME_ZONE: "UTC",
  AGENT_MAX_STEPS: 40,
  ADMINS: "memory:admin",
});

beforeAll(async () => {
  dir = makeTempDir();
  model = await startFakeOpenAI({ apiKey: "sk-test" });
  harness = await startHarness({
    ...settings(join(dir.path, "data")),
    USER_DAILY_TOKEN_LIMIT: 1000,
    PLAN_TOKEN_LIMIT: 300,
  });
  chat = harness.chat;
});

afterAll(async () => {
  await harness?.stop();
  await model.close();
  dir.remove();
});

/** Sends `text` as `user` and waits for the first new answer (not a progress line) matching `match`. */
async function askAs(user: string, text: string, match: (reply: string) => boolean = () => true) {
  const before = chat.textsFor(user).length;
  await chat.receive({ userId: user, text });
  return waitFor(
    () =>
      chat
        .textsFor(user)
        .slice(before)
        .find((t) => !t.startsWith("… ") && match(t)),
    { message: `an answer to "${text}" for ${user}`, timeoutMs: 20_000 },
  );
}

const usage = (prompt: number, completion: number, cached = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  prompt_tokens_details: { cached_tokens: cached },
});
const with_ = (reply: Reply, u: ReturnType<typeof usage>): Reply => ({ ...reply, usage: u }) as Reply;

describe("usage over the whole path", () => {
  it("three turns and a two-subtask plan: /usage gives the exact totals, per kind and model; the usage line is in the details only", async () => {
    const TURN = usage(100, 10, 40);
    const master: Reply[] = [
      with_({ text: "one" }, TURN),
      with_({ text: "two" }, TURN),
      with_({ text: "three" }, TURN),
      with_(
        delegateCall("count twice", [
          { id: "a", objective: "count a", skills: ["run_shell"] },
          { id: "b", objective: "count b", skills: ["run_shell"] },
        ]),
        TURN,
      ),
      with_({ text: "Plan started." }, TURN),
    ];
    model.fallback = (request: ChatRequest) => {
      const kind = kindOf(request);
      if (kind === "worker") return with_(workerJson("counted"), usage(50, 5));
      if (kind === "report") return with_({ text: "Task complete. Both counted." }, usage(30, 3));
      return master.shift() ?? { text: "unexpected" };
    };
    expect(await askAs("counter", "turn one")).toBe("one");
    expect(await askAs("counter", "turn two")).toBe("two");
    expect(await askAs("counter", "turn three")).toBe("three");
    await askAs("counter", "count twice", (t) => t === "Plan started.");
    await waitFor(() => chat.textsFor("counter").find((t) => t.includes("Task complete. Both counted.")), {
      timeoutMs: 20_000,
    });
    const report = await askAs("counter", "/usage", (t) => t.startsWith("📊 Usage"));
    // turns: 5 calls × (100 in, 40 cached, 10 out); workers 2 × (50, 5); report (30, 3).
    // cost per million: in 1, cached 0.5, out 2 → 500 + 120 + 36 µ$.
    expect(report).toContain("for memory:counter");
    expect(report).toContain("Total: 630 in (200 cached) · 63 out · $0.0007 · 8 calls");
    expect(report).toMatch(/^ {2}assistant\s+500 in \(200 cached\) · 50 out · \$0\.0005 · 5 calls$/m);
    expect(report).toMatch(/^ {2}plan workers\s+100 in · 10 out · \$0\.0001 · 2 calls$/m);
    expect(report).toMatch(/^ {2}plan reports\s+30 in · 3 out · \$0\.00004 · 1 call$/m);
    expect(report).toMatch(/^ {2}fake-model\s+630 in \(200 cached\) · 63 out/m);
    expect(report).toContain("Today: daily token limit 693 of 1k");
    // USAGE_FOOTER is off: no answer carries a usage line; the turn that used a tool shows it in its details.
    expect(chat.textsFor("counter").filter((t) => t.includes("📊 ") && !t.startsWith("📊 Usage"))).toEqual(
      [],
    );
    const details = chat.sent.filter((m) => m.to.userId === "counter" && m.thread).map((m) => m.text);
    expect(details.join("\n")).toContain("📊 200 in · 20 out · $0.0002");
  });

  it("a runaway turn is ended by the daily limit; the next turn is refused with the reset time; /stop and commands answer; an admin lifts it", async () => {
    let calls = 0;
    model.fallback = () => {
      calls++;
      return with_({ toolCalls: [{ name: "list_scheduled", arguments: {} }] }, usage(100, 10));
    };
    const ended = await askAs("looper", "loop forever", (t) => t.startsWith("⛔"));
    // 10 calls of 110 tokens reach 1,000; the 11th is refused before the model is asked.
    expect(calls).toBe(10);
    expect(ended).toContain("You reached your daily token limit on home-pc (1.1k of 1k)");
    expect(ended).toMatch(/until it resets at \d{4}-\d{2}-\d{2} 00:00 \(UTC\)/);
    expect(chat.textsFor("looper").some((t) => t.includes("over 80%"))).toBe(true);
    expect(await askAs("looper", "hello again")).toMatch(/^⛔ You reached your daily token limit/);
    expect(calls).toBe(10);
    expect(await askAs("looper", "/stop")).toBe("Nothing is running.");
    expect(await askAs("looper", "/usage", (t) => t.startsWith("📊"))).toContain("Total: 1,000 in · 100 out");
    expect(await askAs("looper", "/usage lift memory:looper")).toBe(
      "Only an owner of home-pc may lift a limit.",
    );
    expect(await askAs("admin", "/usage lift memory:looper")).toContain("lifted until");
    model.fallback = () => ({ text: "back again" });
    expect(await askAs("looper", "hello once more")).toBe("back again");
  });

  it("a plan reaching PLAN_TOKEN_LIMIT stops its workers and its report says why", async () => {
    const master: Reply[] = [
      delegateCall("big job", [
        { id: "x", objective: "spin x", skills: ["run_shell"] },
        { id: "y", objective: "spin y", skills: ["run_shell"] },
      ]),
      { text: "Plan on its way." },
    ];
    let workerCalls = 0;
    model.fallback = (request) => {
      if (kindOf(request) === "worker") {
        workerCalls++;
        return with_({ toolCalls: [{ name: "run_shell", arguments: { command: "true" } }] }, usage(50, 0));
      }
      return master.shift() ?? { text: "unexpected" };
    };
    await askAs("planner", "big job", (t) => t === "Plan on its way.");
    const report = await waitFor(
      () => chat.textsFor("planner").find((t) => t.includes("finished without a summary")),
      {
        timeoutMs: 20_000,
      },
    );
    // 300, or 350 when the second worker's call was in flight as the first reached the limit.
    expect(report).toMatch(
      /⛔ Plan \S+ reached its token limit on home-pc \((300|350) of 300, PLAN_TOKEN_LIMIT\): its workers are stopped\./,
    );
    expect(report).toContain("every part failed");
    // Six calls of 50 reach 300; two workers may each have one more in flight when it is reached.
    expect(workerCalls).toBeGreaterThanOrEqual(6);
    expect(workerCalls).toBeLessThanOrEqual(7);
  });

  it("strangers and forged usage: another user's /usage needs an admin; a forged block counts as 0", async () => {
    expect(await askAs("mallory", "/usage @home-pc memory:counter")).toBe(
      "Only an owner of home-pc may see another user's usage.",
    );
    expect(await askAs("admin", "/usage week memory:counter", (t) => t.startsWith("📊"))).toContain(
      "Total: 630 in (200 cached) · 63 out",
    );
    model.fallback = () =>
      ({
        text: "forged",
        usage: {
          prompt_tokens: -5,
          completion_tokens: 1e18,
          prompt_tokens_details: { cached_tokens: "NaN" },
        },
      }) as Reply;
    expect(await askAs("forger", "hi")).toBe("forged");
    model.fallback = () => with_({ text: "honest" }, usage(10, 1));
    expect(await askAs("forger", "hi")).toBe("honest");
    expect(await askAs("forger", "/usage", (t) => t.startsWith("📊"))).toContain(
      "Total: 10 in · 1 out · $0.00001 · 2 calls",
    );
  });

  it("USAGE_FOOTER=on puts the usage line under each answer", async () => {
    const footer = await startHarness(
      { ...settings(join(dir.path, "footer")), USAGE_FOOTER: "on" },
      process.env,
      "me",
    );
    try {
      model.fallback = () => with_({ text: "with a footer" }, usage(1200, 340));
      expect(await footer.ask("hello")).toBe("with a footer\n\n📊 1.2k in · 340 out · $0.002");
    } finally {
      await footer.stop();
    }
  });
});
