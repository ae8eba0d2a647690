import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createManualClock,
  type FakeOpenAI,
  type ManualClock,
  MINUTE,
  makeTempDir,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ChatHarness, startHarness } from "./chat-harness.ts";

// Reminders and recurring checks end to end — chat → router → host → SQLite → sweeper →
// outbox → router → chat — with a clock the test moves, so "10 minutes later" takes no time.

const START = Date.parse("2026-11-22T08:00:00Z"); // 16:00 in Asia/Shanghai
let model: FakeOpenAI;
let dir: ReturnType<typeof makeTempDir>;
let clock: ManualClock;
let h: ChatHarness;

async function start(overrides: Record<string, unknown> = {}) {
  h = await startHarness(
    {
      DATA_DIR: join(dir.path, "data"),
      WORKING_DIR: dir.path,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
      TIME_ZONE: "Asia/Shanghai",
      SCHEDULER_TICK_S: 3600, // the test sweeps by hand after moving the clock
      ...overrides,
    },
    process.env,
    "me",
    clock,
  );
}

/** Moves the clock and runs the sweeper once, as its timer would. */
async function after(ms: number): Promise<void> {
  clock.advance(ms);
  await h.app.host.scheduler.sweep();
}

// The host stores jobs under the user id the router forwards: qualified by the memory adapter's name.
const jobs = () => h.app.host.jobs.list("memory:me", true);
const pushedSince = (count: number) => h.texts().slice(count);

/** A fresh temp dir, model and clock (start() then starts the standalone on them). */
async function fresh(): Promise<void> {
  dir = makeTempDir();
  model = await startFakeOpenAI({ apiKey: "sk-test" });
  clock = createManualClock(START);
}

async function teardown(): Promise<void> {
  await h?.stop();
  await model.close();
  dir.remove();
}

describe("reminders and recurring checks", () => {
  beforeEach(fresh);
  afterEach(teardown);

  it("/remind 10m deploy check — 10 minutes later the message arrives, and only then", async () => {
    await start();
    const reply = await h.ask("/remind 10m deploy check");
    expect(reply).toBe('⏰ Scheduled #1 2026-11-22 16:10 (Asia/Shanghai) — "deploy check"');
    const before = h.texts().length;

    await after(9 * MINUTE + 59_000);
    expect(pushedSince(before)).toEqual([]);
    await after(1000);
    await waitFor(() => pushedSince(before).includes("⏰ deploy check"));
    expect(jobs()[0]).toMatchObject({ status: "sent", run_count: 1, created_by: "command:/remind" });
    await waitFor(() => jobs()[0]?.sent_at !== null); // the router's ack came back
    expect(jobs()[0]?.sent_message_id).toMatch(/^m\d+$/);

    // Never twice: more sweeps, later.
    await after(60 * MINUTE);
    expect(pushedSince(before).filter((t) => t.includes("deploy check"))).toHaveLength(1);

    // The assistant knows what it said: the reminder is in the conversation the model sees next.
    model.script({ text: "You were reminded about the deploy check." });
    await h.ask("what did you just remind me of?");
    expect(model.requests.at(-1)?.messages).toContainEqual(
      expect.objectContaining({ role: "assistant", content: "⏰ deploy check" }),
    );
  });

  it("/remind at an absolute time in the user's zone, /reminders lists it, /cancel removes it", async () => {
    await start();
    expect(await h.ask("/remind 2026-12-01T09:00 standup")).toBe(
      '⏰ Scheduled #1 2026-12-01 09:00 (Asia/Shanghai) — "standup"',
    );
    expect(await h.ask("/remind 2026-12-01 18:30+08:00 dinner")).toMatch(/^⏰ Scheduled #2 2026-12-01 18:30/);
    expect(await h.ask("/reminders")).toBe(
      [
        "Scheduled:",
        '#1 2026-12-01 09:00 (Asia/Shanghai) — "standup"',
        '#2 2026-12-01 18:30 (Asia/Shanghai) — "dinner"',
        "",
        "/cancel <id> cancels one.",
      ].join("\n"),
    );
    expect(await h.ask("/cancel 1")).toBe('🗑️ Cancelled #1 cancelled — "standup"');
    expect(await h.ask("/cancel 1")).toBe("❌ #1 is already cancelled; only pending jobs can be cancelled.");
    const before = h.texts().length;
    clock.set(Date.parse("2026-12-01T10:30:00Z")); // 18:30 in Shanghai
    await after(0);
    await waitFor(() => pushedSince(before).includes("⏰ dinner"));
    expect(pushedSince(before)).not.toContain("⏰ standup");
  });

  it("'check if the tests pass every 5 minutes' runs on schedule and reports per its notify policy", async () => {
    await start();
    model.script(
      {
        toolCalls: [
          {
            name: "schedule",
            arguments: {
              check_command: "test -f tests-pass",
              description: "the tests",
              every: "5m",
              notify: "on_change",
            },
          },
        ],
      },
      { text: "I'll check the tests every 5 minutes and tell you when the result changes." },
    );
    await h.ask("check if the tests pass every 5 minutes");
    const created = JSON.parse(model.toolResults(model.requests[1])[0] ?? "{}");
    expect(created).toMatchObject({
      task_id: 1,
      kind: "check",
      send_at: new Date(START + 5 * MINUTE).toISOString(),
    });
    expect(jobs()[0]).toMatchObject({ every_s: 300, notify: "on_change", created_by: expect.any(String) });
    const before = h.texts().length;

    await after(5 * MINUTE); // first run: failing — reported
    await waitFor(() => pushedSince(before).some((t) => t.startsWith("🔎 Check #1 (the tests): ❌ failed")));
    await after(5 * MINUTE); // unchanged — silent
    await after(5 * MINUTE); // unchanged — silent
    writeFileSync(join(dir.path, "tests-pass"), "");
    await after(5 * MINUTE); // now passing — reported
    await waitFor(() => pushedSince(before).some((t) => t.startsWith("🔎 Check #1 (the tests): ✅ passed")));
    await after(5 * MINUTE); // unchanged — silent
    expect(pushedSince(before).filter((t) => t.startsWith("🔎"))).toHaveLength(2);
    expect(jobs()[0]).toMatchObject({ status: "pending", run_count: 5 });
  });

  it("a check with notify on_failure stays silent while it passes, and max_runs ends it", async () => {
    await start();
    writeFileSync(join(dir.path, "ok"), "");
    model.script(
      {
        toolCalls: [
          {
            name: "schedule",
            arguments: { check_command: "test -f ok", every: "1h", notify: "on_failure", max_runs: 3 },
          },
        ],
      },
      { text: "Scheduled." },
    );
    await h.ask("tell me if the ok file disappears, hourly, three times");
    const before = h.texts().length;
    await after(60 * MINUTE);
    await after(60 * MINUTE);
    expect(pushedSince(before)).toEqual([]);
    await after(60 * MINUTE);
    expect(jobs()[0]).toMatchObject({ status: "sent", run_count: 3 });
    await after(60 * MINUTE);
    expect(jobs()[0]?.run_count).toBe(3);
    expect(pushedSince(before)).toEqual([]);
  });

  it("replace_existing cancels the pending ones in this chat and says which", async () => {
    await start();
    await h.ask("/remind 30m one");
    await h.ask("/remind 40m two");
    model.script(
      {
        toolCalls: [
          { name: "schedule", arguments: { delay: "1h", message: "three", replace_existing: true } },
        ],
      },
      { text: "Replaced." },
    );
    await h.ask("forget those, remind me of three in an hour");
    const result = JSON.parse(model.toolResults(model.requests[1])[0] ?? "{}");
    expect(result).toMatchObject({ task_id: 3, cancelled_task_ids: [1, 2], replace_existing: true });
    // The tool call that created the new job is recorded as what cancelled the old ones.
    const toolCallId = jobs()[0]?.created_by;
    expect(toolCallId).toEqual(expect.any(String));
    expect(jobs().map((j) => [j.id, j.status, j.cancelled_by])).toEqual([
      [3, "pending", null],
      [2, "cancelled", toolCallId],
      [1, "cancelled", toolCallId],
    ]);
    const before = h.texts().length;
    await after(60 * MINUTE);
    await waitFor(() => pushedSince(before).includes("⏰ three"));
    expect(pushedSince(before)).toEqual(["⏰ three"]);
  });

  it("list_scheduled and cancel_scheduled work for the model; an unknown id is a clear error", async () => {
    await start();
    await h.ask("/remind 30m stretch");
    model.script(
      { toolCalls: [{ name: "list_scheduled", arguments: {} }] },
      { toolCalls: [{ name: "cancel_scheduled", arguments: { id: 1 } }] },
      { toolCalls: [{ name: "cancel_scheduled", arguments: { id: 99 } }] },
      { text: "Done." },
    );
    await h.ask("cancel my stretch reminder");
    const results = model.toolResults(model.requests.at(-1));
    expect(results[0]).toContain('#1 2026-11-22 16:30 (Asia/Shanghai) — "stretch"');
    expect(results[1]).toBe('cancelled #1 cancelled — "stretch"');
    expect(results[2]).toBe("Error: there is no scheduled job #99 (/reminders lists yours)");
  });
});

// One standalone for every bad input (each case would otherwise start one): each is refused before
// anything is stored, so no case sees another's; each checks that nothing at all is stored.
describe("reminders and recurring checks: bad input gets a clear error and stores nothing", () => {
  beforeAll(async () => {
    await fresh();
    await start();
  });
  afterAll(teardown);

  it.each([
    ["/remind 2026-01-01T09:00 too late", /2026-01-01 09:00 \(Asia\/Shanghai\) is in the past/],
    ["/remind someday whenever", /cannot read the time "someday"/],
    ["/remind 10m", /the text is empty/],
    ["/remind", /^Usage: \/remind <when> <text>/],
    ["/cancel 42", /there is no scheduled job #42/],
    ["/cancel soon", /^Usage: \/cancel <id>/],
  ])("%s", async (command, expected) => {
    expect(await h.ask(command)).toMatch(expected);
    expect(jobs()).toEqual([]);
  });

  it.each([
    [{ message: "x", every: "10s" }, "repeating every 10s is too often: the minimum interval is 60s"],
    [{ message: "x", cron: "* * * * * *" }, 'the cron expression "* * * * * *" runs too often'],
    [{ message: "x", cron: "not a cron" }, 'bad cron expression "not a cron"'],
    [{ message: "x", delay: "10m", time_zone: "Mars/Base" }, 'unknown time zone "Mars/Base"'],
    [{ message: "   ", delay: "10m" }, "the text is empty"],
    [{ message: "x", at: "2020-01-01T00:00Z" }, "is in the past"],
    [{ message: "x" }, "say when"],
    [{ message: "x", delay: "10m", max_runs: 2 }, "max_runs needs a recurrence"],
  ])("schedule %o", async (args, expected) => {
    const asked = model.requests.length; // the earlier cases'
    model.script({ toolCalls: [{ name: "schedule", arguments: args }] }, { text: "ok" });
    await h.ask("schedule something");
    // The model's second call of this turn carries the tool's result (the last one: the
    // conversation holds the earlier cases' too).
    expect(model.requests).toHaveLength(asked + 2);
    const result = model.toolResults(model.requests[asked + 1]).at(-1);
    expect(result).toContain(`Error: nothing was scheduled: `);
    expect(result).toContain(expected);
    expect(jobs()).toEqual([]);
  });

  it("the schedule database is a SQLite file under DATA_DIR", async () => {
    expect(existsSync(join(dir.path, "data", "host", "home-pc", "state.db"))).toBe(true);
  });
});
