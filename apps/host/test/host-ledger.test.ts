import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SqliteDatabase } from "@phonework/runtime";
import { createTestLogger, makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { SessionStore } from "../src/coding/session-store.ts";
import { HostConfigSchema } from "../src/config/host-config.ts";
import { createHost } from "../src/create-host.ts";
import { Outbox } from "../src/delivery/outbox.ts";
import { openStateDatabase } from "../src/state-database.ts";
import { TaskRunner } from "../src/tasks/task-runner.ts";
import { type TaskRecord, TaskStore } from "../src/tasks/task-store.ts";
import { onCleanup } from "./support.ts";

// Tasks and sessions live in the host's state.db: imported once from the JSON files older hosts
// wrote, kept across restarts, and a task's end committed with the outbox item announcing it.

function tempDir(): string {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  return dir.path;
}

/** Opens the state database at `path`; closed after the test unless the test closes it first. */
function openDb(path: string): SqliteDatabase {
  const db = openStateDatabase(path);
  onCleanup(() => {
    if (db.open) db.close();
  });
  return db;
}

const task = (fields: Partial<TaskRecord> & Pick<TaskRecord, "id" | "status">): TaskRecord => ({
  kind: "shell",
  description: `task ${fields.id}`,
  command: "make",
  cwd: "/src",
  user_id: "u",
  chat_id: "c",
  platform: "telegram",
  started_at: 1000,
  output: "",
  ...fields,
});

const session = (id: string, userId: string) => ({
  id,
  user_id: userId,
  agent: "codex" as const,
  project: `p${id}`,
  cwd: `/work/p${id}`,
  agent_session_id: `thread-${id}`,
  platform: "telegram",
  chat_id: `chat-${userId}`,
  created_at: 100,
  last_activity: 200,
});

/** A new session's fields: the store gives the id. */
const newSession = (userId: string, project: string) => {
  const { id: _, ...fields } = session("0", userId);
  return { ...fields, project };
};

const owner = { user_id: "u", platform: "telegram", chat_id: "c" };

describe("tasks and sessions in state.db", () => {
  it("imports tasks.json and sessions.json from an older host once, then keeps them in the database", () => {
    const dir = tempDir();
    const tasksJson = join(dir, "tasks.json");
    const sessionsJson = join(dir, "sessions.json");
    writeFileSync(
      tasksJson,
      JSON.stringify({
        version: 1,
        tasks: [
          task({ id: "aaa111", status: "done", finished_at: 1500, exit_code: 0, output: "ok\n" }),
          task({ id: "bbb222", status: "running", started_at: 2000 }),
        ],
      }),
    );
    // Sessions 2 and 4 were closed before the upgrade: their ids are not given out again.
    writeFileSync(
      sessionsJson,
      JSON.stringify({
        version: 1,
        next_id: 5,
        sessions: [session("1", "alice"), session("3", "bob")],
        active: { alice: "1", bob: "3", carol: "4" },
      }),
    );

    const db = openDb(join(dir, "state.db"));
    const tasks = TaskStore.open(db, 9000, tasksJson);
    const sessions = SessionStore.open(db, sessionsJson);

    expect(tasks.get("aaa111")).toMatchObject({
      status: "done",
      finished_at: 1500,
      exit_code: 0,
      output: "ok\n",
    });
    expect(tasks.get("bbb222")).toMatchObject({ status: "lost", finished_at: 9000 });
    expect(sessions.all()).toEqual([session("1", "alice"), session("3", "bob")]);
    expect(sessions.active("alice")?.id).toBe("1");
    expect(sessions.active("bob")?.id).toBe("3");
    expect(sessions.active("carol")).toBeUndefined();
    for (const path of [tasksJson, sessionsJson]) {
      expect(existsSync(path)).toBe(false);
      expect(existsSync(`${path}.bak`)).toBe(true);
    }
    expect(JSON.parse(readFileSync(`${sessionsJson}.bak`, "utf8")).next_id).toBe(5);

    const created = sessions.create(newSession("alice", "new"));
    expect(created.id).toBe("5");
    expect(sessions.active("alice")?.id).toBe("5");
    sessions.remove("1");
    db.close();

    // Reopened with the same paths: the renamed files are not imported a second time.
    const db2 = openDb(join(dir, "state.db"));
    const again = SessionStore.open(db2, sessionsJson);
    expect(again.all().map((s) => s.id)).toEqual(["3", "5"]);
    expect(
      TaskStore.open(db2, 12_000, tasksJson)
        .list()
        .map((t) => t.id),
    ).toEqual(["bbb222", "aaa111"]);
    expect(again.create(newSession("bob", "newer")).id).toBe("6");
  });

  it("opens the host when tasks.json is corrupt, logging it and moving it aside", async () => {
    const dir = tempDir();
    const stateDir = join(dir, "host", "laptop");
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, "tasks.json"), "{ this is not json");
    const { logger, lines } = createTestLogger();
    const config = HostConfigSchema.parse({
      ROUTER_URL: "ws://127.0.0.1:9",
      ROUTER_SECRET: "s",
      NODE_ID: "laptop",
      WORKING_DIR: dir,
      DATA_DIR: dir,
    });

    const host = createHost(config, { logger });
    onCleanup(() => host.stop());

    expect(host.tasks.list("u")).toEqual([]);
    expect(existsSync(join(stateDir, "tasks.json.bak"))).toBe(true);
    expect(existsSync(join(stateDir, "tasks.json"))).toBe(false);
    expect(lines()).toContainEqual(
      expect.objectContaining({
        msg: "old state file unreadable: not imported",
        path: join(stateDir, "tasks.json"),
      }),
    );
  });

  it("keeps tasks and sessions across a close and reopen of the database file", () => {
    const path = join(tempDir(), "state.db");
    const db = openDb(path);
    const tasks = TaskStore.open(db, 1000);
    tasks.save(task({ id: "t1", status: "done", finished_at: 1200, exit_code: null, output: "built" }));
    tasks.save(task({ id: "t2", status: "running", started_at: 3000 }));
    const sessions = SessionStore.open(db);
    const first = sessions.create(newSession("alice", "one"));
    const second = sessions.create(newSession("alice", "two"));
    sessions.update(second.id, { model: "o3", effort: "high", last_activity: 999 });
    sessions.setActive("alice", first.id);
    db.close();

    const reopened = openDb(path);
    const tasksAfter = TaskStore.open(reopened, 5000);
    expect(tasksAfter.get("t1")).toMatchObject({ status: "done", finished_at: 1200, output: "built" });
    expect(tasksAfter.get("t2")).toMatchObject({ status: "lost", finished_at: 5000 });
    const sessionsAfter = SessionStore.open(reopened);
    expect(sessionsAfter.forUser("alice").map((s) => [s.id, s.project])).toEqual([
      ["1", "one"],
      ["2", "two"],
    ]);
    expect(sessionsAfter.get("2")).toMatchObject({ model: "o3", effort: "high", last_activity: 999 });
    expect(sessionsAfter.active("alice")?.id).toBe("1");
  });

  it("skips a row that no longer fits the schema instead of failing", () => {
    const db = openDb(join(tempDir(), "state.db"));
    const tasks = TaskStore.open(db, 1000);
    tasks.save(task({ id: "good", status: "done", finished_at: 1100 }));
    tasks.save(task({ id: "bad", status: "done", finished_at: 1100 }));
    db.prepare("UPDATE tasks SET status = 'exploded' WHERE id = 'bad'").run();

    expect(tasks.list().map((t) => t.id)).toEqual(["good"]);
    expect(tasks.get("bad")).toBeUndefined();
    expect(tasks.has("bad")).toBe(true); // its id is still taken
  });

  describe("a task's end and its outbox item are one transaction", () => {
    const setup = (path: string, onFinished: (outbox: Outbox, task: TaskRecord) => void) => {
      const db = openDb(path);
      const { logger, lines } = createTestLogger();
      const outbox = new Outbox(db, logger);
      const runner = new TaskRunner({
        store: TaskStore.open(db, Date.now()),
        timeoutMs: 10_000,
        clock: { now: () => Date.now() },
        logger,
        transaction: (fn) => db.transaction(fn)(),
        onFinished: (finished) => onFinished(outbox, finished),
      });
      onCleanup(() => runner.stopAll());
      let finish: () => void = () => {};
      const submitted = runner.submit({
        kind: "shell",
        description: "build",
        command: "make",
        cwd: "/src",
        userId: owner.user_id,
        chatId: owner.chat_id,
        platform: owner.platform,
        run: () =>
          new Promise((resolve) => (finish = () => resolve({ ok: true, output: "built", exitCode: 0 }))),
      });
      const taskRow = () =>
        db.prepare("SELECT status, finished_at FROM tasks WHERE id = ?").get(submitted.id) as
          | { status: string; finished_at: number | null }
          | undefined;
      const outboxFrames = () =>
        (db.prepare("SELECT frame FROM outbox").all() as Array<{ frame: string }>).map((row) =>
          JSON.parse(row.frame),
        );
      return { db, outbox, submitted, finish: () => finish(), taskRow, outboxFrames, lines };
    };

    const announce = (outbox: Outbox, finished: TaskRecord) =>
      outbox.enqueue(
        { type: "notify", ...owner, text: `✅ #${finished.id} ${finished.status}` },
        `task-${finished.id}`,
      );

    it("commits the finished status together with the outbox row", async () => {
      let rowsSeenInside: unknown;
      const { db, submitted, finish, taskRow, outboxFrames } = setup(
        join(tempDir(), "state.db"),
        (outbox, finished) => {
          announce(outbox, finished);
          rowsSeenInside = db.prepare("SELECT count(*) AS n FROM outbox").get();
        },
      );
      expect(taskRow()?.status).toBe("running");

      finish();
      await waitFor(() => taskRow()?.status === "done", { message: "task recorded as done" });

      // Written inside the transaction, not queued for a later group commit.
      expect(rowsSeenInside).toEqual({ n: 1 });
      expect(outboxFrames()).toEqual([
        expect.objectContaining({ delivery_id: `task-${submitted.id}`, text: `✅ #${submitted.id} done` }),
      ]);
    });

    it("commits neither when announcing the end fails: the task stays running, then shows as lost", async () => {
      const path = join(tempDir(), "state.db");
      let attempted = false;
      const { db, submitted, finish, taskRow, outboxFrames, lines } = setup(path, (outbox, finished) => {
        announce(outbox, finished);
        attempted = true;
        throw new Error("announcement failed");
      });

      finish();
      await waitFor(() => attempted, { message: "onFinished called" });
      await waitFor(() => lines().some((line) => line.msg === "background task end not recorded"));

      expect(taskRow()).toEqual({ status: "running", finished_at: null });
      expect(outboxFrames()).toEqual([]);
      db.close();

      const reopened = openDb(path);
      expect(TaskStore.open(reopened, 77_000).get(submitted.id)).toMatchObject({
        status: "lost",
        finished_at: 77_000,
      });
      expect(new Outbox(reopened, createTestLogger().logger).pending()).toBe(0);
    });
  });
});
