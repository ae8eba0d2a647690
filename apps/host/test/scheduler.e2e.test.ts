import { join } from "node:path";
import { createLogger } from "@phonework/runtime";
import {
  bundledScript,
  createManualClock,
  MINUTE,
  makeTempDir,
  repoRoot,
  spawnProcess,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { Outbox } from "../src/delivery/outbox.ts";
import type { ScheduledJob } from "../src/schedule/job.ts";
import { JobStore, type NewJob } from "../src/schedule/job-store.ts";
import { nextRun } from "../src/schedule/recurrence.ts";
import { type CheckOutcome, Scheduler } from "../src/schedule/scheduler.ts";
import { parseDelaySeconds, parseWhen } from "../src/schedule/when.ts";
import { openStateDatabase } from "../src/state-database.ts";
import { onCleanup } from "./support.ts";

// The scheduler against a real SQLite file: atomic claims (two processes racing), outages
// (no burst of missed runs), crash recovery of claims, and the time grammar.

const logger = createLogger({ level: "silent" });
const OWNER = { user_id: "u1", platform: "memory", chat_id: "c1" };

function openStore(path: string, now: () => number) {
  const db = openStateDatabase(path);
  const store = new JobStore(db, now);
  const outbox = new Outbox(db, logger, now);
  // As the host stops: the outbox first (its batched deletes of acknowledged rows), then the database.
  onCleanup(() => {
    outbox.close();
    db.close();
  });
  return { db, store, outbox };
}

function tempDb(): string {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  return join(dir.path, "state.db");
}

function scheduler(
  parts: ReturnType<typeof openStore>,
  now: () => number,
  runCheck = async (): Promise<CheckOutcome> => ({ ok: true, output: "" }),
) {
  const remembered: string[] = [];
  const s = new Scheduler({
    ...parts,
    runCheck,
    remember: (_user, text) => remembered.push(text),
    now,
    logger,
    lateAfterMs: 60_000,
  });
  return { scheduler: s, remembered };
}

const outboxTexts = (parts: ReturnType<typeof openStore>) =>
  (parts.db.prepare("SELECT frame FROM outbox ORDER BY seq").all() as Array<{ frame: string }>).map(
    (row) => (JSON.parse(row.frame) as { text: string }).text,
  );

const message = (text: string, dueAt: number, extra: Partial<NewJob> = {}): NewJob => ({
  ...OWNER,
  kind: "message",
  text,
  due_at: dueAt,
  time_zone: "UTC",
  ...extra,
});

describe("scheduler", () => {
  it("two sweepers in two processes racing on one store never double-send", async () => {
    const path = tempDb();
    const parts = openStore(path, Date.now);
    const due = Date.now() - 1000;
    parts.db.transaction(() => {
      for (let i = 0; i < 300; i++) parts.store.create(message(`job ${i}`, due));
    })();
    const script = await bundledScript(join(repoRoot, "apps", "host", "test", "fixtures", "sweep-race.ts"));
    const racers = [0, 1].map(() => spawnProcess(process.execPath, [script, path]));
    // Both start sweeping at the same moment: once both are up.
    await Promise.all(racers.map((racer) => racer.waitForStderr(/^ready$/m)));
    for (const racer of racers) racer.writeLine("go");
    const exits = await Promise.all(racers.map((r) => r.exited));
    expect(exits.map((e) => e.code)).toEqual([0, 0]);
    const ran = racers.map((r) => (JSON.parse(r.stdout()) as { ran: number }).ran);
    expect(ran.reduce((a, b) => a + b, 0)).toBe(300);

    const rows = parts.db.prepare("SELECT delivery_id FROM outbox").all() as Array<{ delivery_id: string }>;
    expect(rows).toHaveLength(300);
    expect(new Set(rows.map((r) => r.delivery_id)).size).toBe(300);
    const texts = outboxTexts(parts);
    expect(new Set(texts).size).toBe(300);
    const jobs = parts.db.prepare("SELECT status, run_count, claimed_by FROM scheduled_jobs").all();
    expect(
      jobs.every(
        (j) => JSON.stringify(j) === JSON.stringify({ status: "sent", run_count: 1, claimed_by: null }),
      ),
    ).toBe(true);
  });

  it("a recurring job after an outage runs once (late) and re-arms from now: no burst of missed runs", async () => {
    const clock = createManualClock(Date.parse("2026-11-22T08:00:00Z"));
    const parts = openStore(tempDb(), clock.now);
    const { scheduler: s } = scheduler(parts, clock.now);
    parts.store.create(message("drink water", clock.now() + MINUTE, { every_s: 60 }));

    clock.advance(30 * MINUTE); // 30 runs were due while the host was down
    expect(await s.sweep()).toBe(1);
    expect(await s.sweep()).toBe(0);
    expect(outboxTexts(parts)).toEqual([
      "⏰ (late: was due 2026-11-22 08:01 (UTC); this host was offline) drink water",
    ]);
    expect(parts.store.get(1)).toMatchObject({
      status: "pending",
      run_count: 1,
      due_at: clock.now() + MINUTE,
    });
    clock.advance(MINUTE);
    expect(await s.sweep()).toBe(1);
    expect(outboxTexts(parts).at(-1)).toBe("⏰ drink water");
  });

  it("if_missed skip: a recurring job's missed runs are dropped silently, a one-shot is marked missed once", async () => {
    const clock = createManualClock(Date.parse("2026-11-22T08:00:00Z"));
    const parts = openStore(tempDb(), clock.now);
    const { scheduler: s, remembered } = scheduler(parts, clock.now);
    const due = clock.now() + MINUTE;
    parts.store.create(message("hourly", due, { every_s: 3600, late_policy: "skip" }));
    parts.store.create(message("standup", clock.now() + MINUTE, { late_policy: "skip" }));

    clock.advance(10 * MINUTE);
    await s.sweep();
    await s.sweep();
    expect(outboxTexts(parts)).toEqual([
      '⏭️ Missed reminder #2, due 2026-11-22 08:01 (UTC): "standup". It was not sent because this host was offline then.',
    ]);
    expect(remembered).toEqual(outboxTexts(parts));
    expect(parts.store.get(1)).toMatchObject({
      status: "pending",
      run_count: 0,
      due_at: due + 3600_000, // not run; its next slot, still in the future, stands
    });
    expect(parts.store.get(2)).toMatchObject({ status: "missed" });
  });

  it("claims left by a process that died mid-run are released when the scheduler starts", async () => {
    const clock = createManualClock();
    const parts = openStore(tempDb(), clock.now);
    parts.store.create(message("after the crash", clock.now() - 1000));
    expect(parts.store.claimDue(clock.now(), "dead-process", 10)).toHaveLength(1);
    const { scheduler: s } = scheduler(parts, clock.now);
    expect(await s.sweep()).toBe(0); // still claimed by the dead process
    s.start(3_600_000);
    await s.stop();
    expect(outboxTexts(parts)).toEqual(["⏰ after the crash"]);
  });

  it("a check that throws is recorded as a failure and reported; the job is not lost", async () => {
    const clock = createManualClock();
    const parts = openStore(tempDb(), clock.now);
    const { scheduler: s } = scheduler(parts, clock.now, async () => {
      throw new Error("disk on fire");
    });
    parts.store.create({
      ...message("the disk", clock.now(), { every_s: 300 }),
      kind: "check",
      check_command: "df",
    });
    await s.sweep();
    expect(outboxTexts(parts)).toEqual(["🔎 Check #1 (the disk): ❌ failed\n\ncould not run: disk on fire"]);
    expect(parts.store.get(1)).toMatchObject({
      status: "pending",
      last_error: "could not run: disk on fire",
    });
  });

  it("the router's ack fills in sent time and message id; a refusal marks the job failed with the reason", async () => {
    const clock = createManualClock();
    const parts = openStore(tempDb(), clock.now);
    const { scheduler: s } = scheduler(parts, clock.now);
    parts.outbox.onSettled((result) => s.handleDelivery(result));
    parts.store.create(message("one", clock.now()));
    parts.store.create(message("two", clock.now()));
    await s.sweep();
    parts.outbox.acknowledge({ type: "push_ack", delivery_id: "job-1-run-1", ok: true, message_id: "om_1" });
    parts.outbox.acknowledge({ type: "push_ack", delivery_id: "job-2-run-1", ok: false, error: "chat gone" });
    expect(parts.store.get(1)).toMatchObject({
      status: "sent",
      sent_at: clock.now(),
      sent_message_id: "om_1",
    });
    expect(parts.store.get(2)).toMatchObject({ status: "failed", last_error: "chat gone", sent_at: null });
    expect(parts.outbox.pending()).toBe(0);
  });
});

describe("time grammar", () => {
  it.each([
    ["10m", 600],
    ["1h30m", 5400],
    ["1h 30m", 5400],
    ["90s", 90],
    ["2 hours", 7200],
    ["1d", 86_400],
    ["10", undefined],
    ["soon", undefined],
    ["10 parsecs", undefined],
  ])("delay %s → %s seconds", (text, seconds) => {
    expect(parseDelaySeconds(text)).toBe(seconds);
  });

  const now = Date.parse("2026-11-22T08:00:00Z");
  it("local times are read in the user's zone; an offset wins", () => {
    expect(parseWhen("2026-12-01T09:00", now, "Asia/Shanghai")).toEqual({
      ok: true,
      value: Date.parse("2026-12-01T01:00:00Z"),
    });
    expect(parseWhen("2026-12-01T09:00-05:00", now, "Asia/Shanghai")).toEqual({
      ok: true,
      value: Date.parse("2026-12-01T14:00:00Z"),
    });
  });

  it("cron runs in the job's zone, across a DST change", () => {
    const job = { every_s: null, cron: "0 9 * * *", time_zone: "Europe/Berlin" } as ScheduledJob;
    // Berlin leaves summer time on 2026-10-25: 09:00 is 07:00Z before, 08:00Z after.
    const before = nextRun(job, Date.parse("2026-10-24T07:00:00Z"), Date.parse("2026-10-24T07:00:00Z"));
    expect(new Date(before).toISOString()).toBe("2026-10-25T08:00:00.000Z");
  });
});
