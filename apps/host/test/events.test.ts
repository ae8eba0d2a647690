import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger, openDatabase } from "@phonework/runtime";
import { type AnyFrame, createManualClock, type ManualClock, makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { SESSIONS_MIGRATION } from "../src/coding/session-store.ts";
import { OUTBOX_MIGRATION } from "../src/delivery/outbox.ts";
import { EventsDirectory } from "../src/schedule/events-directory.ts";
import { JOBS_MIGRATION, JobStore } from "../src/schedule/job-store.ts";
import { openStateDatabase } from "../src/state-database.ts";
import { TASKS_MIGRATION } from "../src/tasks/task-store.ts";
import { PLANS_MIGRATION } from "../src/workers/plan-ledger.ts";
import { onCleanup, startHostWithModel } from "./support.ts";

// The workspace's events/ directory through a real host on a manual clock: each kind of event
// fires once at its time, on the platform and in the chat it names, with or without the model;
// it survives a restart; broken files become .error; a periodic event lives as long as its file.

/** Monday 2026-01-05, 07:00 UTC (08:00 in Berlin). */
const at = (hour: number, minute: number, second = 0) => Date.UTC(2026, 0, 5, hour, minute, second);
const USER = "telegram:123";

async function eventsHost(clock: ManualClock, dir: { path: string; remove?: () => void } = makeTempDir()) {
  const s = await startHostWithModel({ SCHEDULER_TICK_S: 0.05, TIME_ZONE: "UTC" }, dir, { clock });
  const eventsDir = join(s.dir, "host", "laptop", "workspace", "events");
  const file = (name: string) => join(eventsDir, name);
  const notifies = () => s.router.latest().inbox.frames.filter((f) => f.type === "notify");
  let next = 0;
  return {
    ...s,
    eventsDir,
    file,
    /** Written in place, as `echo … > file` would. */
    drop: (name: string, event: object | string) =>
      writeFileSync(file(name), typeof event === "string" ? event : JSON.stringify(event)),
    notifies,
    texts: () => notifies().map((f) => f.text),
    notified: (text: string) =>
      waitFor(() => notifies().find((f) => f.text === text), { message: `a notify "${text}"` }),
    /** A plain message event, and its delivery: every sweep before it has run. */
    marker: async () => {
      const text = `marker ${++next}`;
      writeFileSync(
        file(`marker-${next}.json`),
        JSON.stringify({ type: "immediate", channel: USER, text, kind: "message" }),
      );
      return waitFor(() => notifies().find((f) => f.text === `⏰ ${text}`), { message: text });
    },
    ask: async (text: string) => {
      const id = `r${++next}`;
      s.router
        .latest()
        .send({ type: "forward", id, user_id: USER, chat_id: USER, platform: "telegram", text });
      return String(
        (await s.router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000)).text,
      );
    },
  };
}

const pending = (host: { jobs: JobStore }) => host.jobs.list(USER);

describe("events directory", () => {
  it("an immediate, a one-shot and a periodic event each fire once, at their time", async () => {
    const clock = createManualClock(at(7, 0));
    const s = await eventsHost(clock);
    s.drop("now.json", { type: "immediate", channel: USER, text: "backup done" });
    s.drop("later.json", {
      type: "one-shot",
      channel: USER,
      text: "dentist",
      at: "2026-01-05T08:30:00+01:00",
      kind: "message",
    });
    s.drop("daily.json", {
      type: "periodic",
      channel: USER,
      text: "standup",
      schedule: "0 9 * * 1-5",
      timezone: "Europe/Berlin",
      kind: "message",
    });
    await s.notified("fake-model: [event] backup done");
    await waitFor(() => pending(s.host).length === 2 && !existsSync(s.file("later.json")));
    expect(existsSync(s.file("now.json"))).toBe(false);
    expect(existsSync(s.file("daily.json"))).toBe(true); // a periodic event's file stays
    expect(s.texts()).toEqual(["fake-model: [event] backup done"]);

    clock.set(at(7, 30, 1)); // 08:30 in Berlin
    await s.notified("⏰ dentist");
    clock.set(at(8, 0, 1)); // 09:00 in Berlin
    await s.notified("⏰ standup");
    await s.marker();
    expect(s.texts()).toEqual(["fake-model: [event] backup done", "⏰ dentist", "⏰ standup", "⏰ marker 1"]);
    const [daily] = pending(s.host);
    expect(daily?.due_at).toBe(Date.UTC(2026, 0, 6, 8, 0)); // next weekday, 09:00 in Berlin
    expect(daily?.event_file).toBe("daily.json");
  });

  it("a reminder whose text already starts with ⏰ shows it once", async () => {
    const s = await eventsHost(createManualClock(at(7, 0)));
    s.drop("alarm.json", { type: "immediate", channel: USER, text: "⏰ stretch", kind: "message" });
    // A reminder firing is news for the user's phone too.
    expect(await s.notified("⏰ stretch")).toMatchObject({ alert: "reminder" });
    await s.marker();
    expect(s.texts()).toEqual(["⏰ stretch", "⏰ marker 1"]);
  });

  it("an event is a turn of the assistant in its chat; kind message is sent as is, with no model call", async () => {
    const s = await eventsHost(createManualClock(at(7, 0)));
    s.model.script({ text: "Your nightly backup finished." });
    s.drop("backup.json", { type: "immediate", channel: USER, text: "backup done: 3.2 GB" });
    const answer = await s.notified("Your nightly backup finished.");
    expect(answer).toMatchObject({ user_id: USER, platform: "telegram", chat_id: USER });
    expect(s.model.requests).toHaveLength(1);
    expect(s.model.lastUserText(s.model.requests[0])).toBe("[event] backup done: 3.2 GB");

    s.drop("deploy.json", { type: "immediate", channel: USER, text: "deploy finished", kind: "message" });
    await s.notified("⏰ deploy finished");
    expect(s.model.requests).toHaveLength(1);

    // The event's turn is in the user's conversation: their next message comes after it.
    await s.ask("what happened?");
    const history = s.model.requests[1]?.messages.map((m) => m.content) ?? [];
    expect(history).toContain("[event] backup done: 3.2 GB");
    expect(history).toContain("Your nightly backup finished.");
  });

  it("reaches the platform and chat its channel names, for the user given (or the channel's own id)", async () => {
    const s = await eventsHost(createManualClock(at(7, 0)));
    s.drop("tg.json", {
      type: "immediate",
      channel: "telegram:-1001",
      user: USER,
      text: "to the group",
      kind: "message",
    });
    s.drop("fs.json", { type: "immediate", channel: "feishu:ou_abc", text: "to feishu", kind: "message" });
    const group = await s.notified("⏰ to the group");
    const feishu = await s.notified("⏰ to feishu");
    const where = (f: AnyFrame) => ({ user_id: f.user_id, platform: f.platform, chat_id: f.chat_id });
    expect(where(group)).toEqual({ user_id: USER, platform: "telegram", chat_id: "telegram:-1001" });
    expect(where(feishu)).toEqual({ user_id: "feishu:ou_abc", platform: "feishu", chat_id: "feishu:ou_abc" });
  });

  it("survives a host restart: events stored before it, and one dropped while it was down, fire once", async () => {
    const clock = createManualClock(at(7, 0));
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const first = await eventsHost(clock, { path: dir.path });
    first.drop("later.json", {
      type: "one-shot",
      channel: USER,
      text: "dentist",
      at: "2026-01-05T07:30:00Z",
      kind: "message",
    });
    first.drop("daily.json", {
      type: "periodic",
      channel: USER,
      text: "standup",
      schedule: "0 8 * * *",
      kind: "message",
    });
    await waitFor(() => pending(first.host).length === 2);
    const before = pending(first.host).map((job) => job.id);
    await first.host.stop();
    first.drop("offline.json", {
      type: "immediate",
      channel: USER,
      text: "written while down",
      kind: "message",
    });

    clock.set(at(8, 0, 1)); // the one-shot's time passed while the host was down
    const second = await eventsHost(clock, { path: dir.path });
    await second.notified("⏰ standup");
    await second.notified("⏰ written while down");
    const late = await waitFor(() => second.notifies().find((f) => String(f.text).endsWith("dentist")));
    expect(late.text).toMatch(
      /^⏰ \(late: was due 2026-01-05 07:30 \(UTC\); this host was offline\) dentist$/,
    );
    await second.marker();
    expect(first.notifies()).toEqual([]);
    expect(second.texts()).toHaveLength(4); // each once, and the marker
    // The restart kept the periodic job (its due time, its id) rather than storing it again.
    expect(pending(second.host).map((job) => job.id)).toEqual(before.slice(1));
    expect(pending(second.host)[0]?.due_at).toBe(Date.UTC(2026, 0, 6, 8, 0));
  });

  it("a broken file becomes <file>.error with the reason beside it, once; other names are left alone", async () => {
    const s = await eventsHost(createManualClock(at(7, 0)));
    const broken: Record<string, [string | object, RegExp]> = {
      "bad-json.json": ["{not json", /^not JSON: /],
      "unknown-type.json": [
        { type: "sometimes", channel: USER, text: "x" },
        /^type: Invalid discriminator value/,
      ],
      "bad-time.json": [
        { type: "one-shot", channel: USER, text: "x", at: "next tuesday" },
        /^at: cannot read/,
      ],
      "bad-cron.json": [
        { type: "periodic", channel: USER, text: "x", schedule: "every day" },
        /^schedule: bad cron/,
      ],
      "bad-zone.json": [
        { type: "periodic", channel: USER, text: "x", schedule: "0 9 * * *", timezone: "Mars/Base" },
        /^timezone: is not an IANA time zone/,
      ],
      "no-channel.json": [{ type: "immediate", text: "x" }, /^channel: /],
      "no-adapter.json": [
        { type: "immediate", channel: "123", text: "x" },
        /^channel: must be "<adapter>:<chat>"/,
      ],
      "typo.json": [{ type: "immediate", channel: USER, txet: "x" }, /txet/],
      "big.json": [{ type: "immediate", channel: USER, text: "x".repeat(70_000) }, /at most 64 KB/],
    };
    for (const [name, [content]] of Object.entries(broken)) s.drop(name, content);
    writeFileSync(s.file("notes.txt"), "not an event");
    for (const [name, [, reason]] of Object.entries(broken)) {
      await waitFor(() => existsSync(s.file(`${name}.error.txt`)), { message: `${name}.error.txt` });
      expect(readFileSync(s.file(`${name}.error.txt`), "utf8")).toMatch(reason);
    }
    await s.marker(); // the host is up, and more rescans have run
    const expected = Object.keys(broken).flatMap((name) => [`${name}.error`, `${name}.error.txt`]);
    expect(readdirSync(s.eventsDir).sort()).toEqual([...expected, "notes.txt"].sort());
    expect(pending(s.host)).toEqual([]);
  });

  it("a periodic event lives as long as its file: an edit replaces its job, deleting the file stops it", async () => {
    const clock = createManualClock(at(7, 0));
    const s = await eventsHost(clock);
    const tick = (text: string) => ({
      type: "periodic",
      channel: USER,
      text,
      schedule: "*/5 * * * *",
      kind: "message",
    });
    s.drop("tick.json", tick("tick"));
    await waitFor(() => pending(s.host).length === 1);
    clock.set(at(7, 5, 1));
    await s.notified("⏰ tick");

    const old = pending(s.host)[0];
    s.drop("tick.json", tick("tock"));
    const replaced = await waitFor(() => pending(s.host).find((job) => job.text === "tock"));
    expect(pending(s.host)).toHaveLength(1);
    expect(s.host.jobs.get(old?.id ?? 0)?.status).toBe("cancelled");
    clock.set(at(7, 10, 1));
    await s.notified("⏰ tock");

    rmSync(s.file("tick.json"));
    await waitFor(() => s.host.jobs.get(replaced.id)?.status === "cancelled");
    clock.set(at(7, 15, 1));
    await s.marker();
    expect(s.texts()).toEqual(["⏰ tick", "⏰ tock", "⏰ marker 1"]);
  });

  it("/reminders shows events as such; /cancel of a periodic event deletes its file too", async () => {
    const s = await eventsHost(createManualClock(at(7, 0)));
    s.drop("daily.json", {
      type: "periodic",
      channel: USER,
      text: "standup",
      schedule: "0 9 * * *",
      kind: "message",
    });
    const job = await waitFor(() => pending(s.host)[0]);
    expect(await s.ask("/reminders")).toContain(
      `#${job.id} 2026-01-05 09:00 (UTC) · cron "0 9 * * *" — "standup" (event, events/daily.json; /cancel deletes the file)`,
    );
    expect(await s.ask(`/cancel ${job.id}`)).toMatch(/^🗑️ Cancelled #\d+ cancelled/);
    expect(existsSync(s.file("daily.json"))).toBe(false);
    await s.marker();
    expect(pending(s.host)).toEqual([]); // not brought back by a rescan
  });
});

describe("events directory across a crash", () => {
  it("a file whose job was committed just before a crash is removed at the restart, not stored again", () => {
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const db = openStateDatabase(join(dir.path, "state.db"));
    onCleanup(() => void db.close());
    const store = new JobStore(db, () => at(7, 0));
    const directory = (transaction: <T>(fn: () => T) => T) =>
      new EventsDirectory({
        dir: dir.path,
        store,
        transaction,
        limits: { minIntervalS: 60, defaultTimeZone: "UTC" },
        now: () => at(7, 0),
        logger: createLogger({ level: "silent" }),
        settleMs: 0,
      });
    writeFileSync(
      join(dir.path, "backup.json"),
      JSON.stringify({ type: "immediate", channel: USER, text: "done" }),
    );
    directory((fn) => {
      db.transaction(fn)();
      throw new Error("power cut right after the commit");
    }).rescan();
    expect(existsSync(join(dir.path, "backup.json"))).toBe(true);
    expect(store.list(USER)).toHaveLength(1);

    directory((fn) => db.transaction(fn)()).rescan();
    expect(existsSync(join(dir.path, "backup.json"))).toBe(false);
    expect(store.list(USER, true)).toHaveLength(1);
  });

  it("the migration keeps every job and never gives out a job id again", () => {
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const path = join(dir.path, "state.db");
    const old = openDatabase(path, {
      migrations: [OUTBOX_MIGRATION, JOBS_MIGRATION, TASKS_MIGRATION, SESSIONS_MIGRATION, PLANS_MIGRATION],
    });
    const insert = old.prepare(
      `INSERT INTO scheduled_jobs (user_id, platform, chat_id, kind, text, due_at, time_zone, created_at, updated_at)
       VALUES ('u1', 'memory', 'c1', 'message', ?, 0, 'UTC', 0, 0)`,
    );
    insert.run("kept");
    insert.run("deleted");
    old.prepare("DELETE FROM scheduled_jobs WHERE text = 'deleted'").run();
    old.close();

    const db = openStateDatabase(path);
    onCleanup(() => void db.close());
    const store = new JobStore(db, () => 0);
    expect(store.list("u1")).toMatchObject([{ id: 1, text: "kept", event_file: null }]);
    const event = store.create({
      user_id: "u1",
      platform: "memory",
      chat_id: "c1",
      kind: "event",
      text: "e",
      due_at: 0,
      time_zone: "UTC",
    });
    expect(event.id).toBe(3);
  });
});
