import { join } from "node:path";
import { createTestLogger, makeTempDir, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { openStateDatabase } from "../src/state-database.ts";
import { formatTaskList } from "../src/tasks/format-tasks.ts";
import { TaskRunner } from "../src/tasks/task-runner.ts";
import { type TaskRecord, TaskStore } from "../src/tasks/task-store.ts";
import { onCleanup } from "./support.ts";

function openDb(path: string) {
  const db = openStateDatabase(path);
  onCleanup(() => {
    db.close();
  });
  return db;
}

function setup() {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const finished: TaskRecord[] = [];
  const store = TaskStore.open(openDb(join(dir.path, "state.db")), Date.now());
  const runner = new TaskRunner({
    store,
    timeoutMs: 10_000,
    clock: { now: () => Date.now() },
    logger: createTestLogger().logger,
    onFinished: (task) => finished.push(task),
  });
  onCleanup(() => runner.stopAll());
  return { runner, finished, dir: dir.path };
}

const request = (command: string) => ({
  command,
  cwd: "/tmp",
  description: command,
  userId: "u",
  chatId: "c",
  platform: "p",
});

describe("background tasks", () => {
  it("returns a task id at once and reports completion with output", async () => {
    const { runner, finished } = setup();
    const task = runner.submitShell(request("echo start; sleep 0.3; echo finished"));
    expect(task).toMatchObject({ status: "running", id: expect.stringMatching(/^[0-9a-f]{6}$/) });
    await waitFor(() => runner.get("u", task.id)?.output.includes("start"), { message: "output so far" });
    expect(runner.get("u", task.id)?.status).toBe("running");
    await waitFor(() => finished.length === 1);
    expect(finished[0]).toMatchObject({ id: task.id, status: "done", exit_code: 0 });
    expect(finished[0]?.output).toBe("start\nfinished\n");
  });

  it("marks a failing command failed", async () => {
    const { runner, finished } = setup();
    runner.submitShell(request("echo nope >&2; exit 4"));
    await waitFor(() => finished.length === 1);
    expect(finished[0]).toMatchObject({ status: "failed", exit_code: 4, output: "nope\n" });
  });

  it("shows a task that was running when the host died as lost", () => {
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const path = join(dir.path, "state.db");
    const db = openStateDatabase(path);
    const before = TaskStore.open(db, 1000);
    before.save({
      id: "abc123",
      kind: "shell",
      description: "long build",
      command: "make",
      cwd: "/",
      user_id: "u",
      chat_id: "c",
      platform: "p",
      status: "running",
      started_at: 1000,
      output: "",
    });
    db.close();
    const after = TaskStore.open(openDb(path), 5000);
    expect(after.get("abc123")).toMatchObject({ status: "lost", finished_at: 5000 });
    expect(formatTaskList(after.list(), 6000)).toBe(
      "Tasks:\n💀 #abc123 lost (the host stopped while it ran) — long build",
    );
  });

  it("lists running tasks first with elapsed time", async () => {
    const { runner } = setup();
    const done = runner.submitShell(request("true"));
    await waitFor(() => runner.get("u", done.id)?.status === "done");
    const running = runner.submitShell(request("sleep 5"));
    const text = formatTaskList(runner.list("u"), Date.now() + 42_000);
    expect(text.split("\n")).toEqual([
      "Tasks:",
      `⏳ #${running.id} running 42s — sleep 5`,
      expect.stringMatching(new RegExp(`^✅ #${done.id} done in \\d+s — true$`)),
    ]);
  });
});
