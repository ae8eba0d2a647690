import { readJsonFile, writeJsonFileAtomic } from "@phonework/runtime";
import { z } from "zod";

// Background tasks, recorded under DATA_DIR so /tasks survives a restart. A task that was
// running when the host died is marked `lost` on the next start, never silently dropped.

export const TaskRecord = z.object({
  id: z.string(),
  /** A shell command, or a coding-session turn that ran long. */
  kind: z.enum(["shell", "session"]).default("shell"),
  description: z.string(),
  command: z.string(),
  cwd: z.string(),
  user_id: z.string(),
  chat_id: z.string(),
  platform: z.string(),
  /** `stopped`: a coding turn ended by /stop; `cancelled`: the task itself was cancelled. */
  status: z.enum(["running", "done", "failed", "stopped", "cancelled", "lost"]),
  started_at: z.number(),
  finished_at: z.number().optional(),
  exit_code: z.number().nullable().optional(),
  output: z.string().default(""),
});
export type TaskRecord = z.infer<typeof TaskRecord>;

const TaskFile = z.object({ version: z.literal(1), tasks: z.array(TaskRecord) });
const KEEP = 100;

export class TaskStore {
  private constructor(
    private tasks: TaskRecord[],
    private readonly persist: (tasks: TaskRecord[]) => void,
  ) {}

  static open(path: string, now: number): TaskStore {
    const file = readJsonFile(path, TaskFile, { version: 1, tasks: [] });
    const tasks = file.tasks.map((task) =>
      task.status === "running" ? { ...task, status: "lost" as const, finished_at: now } : task,
    );
    const store = new TaskStore(tasks, (all) => writeJsonFileAtomic(path, { version: 1, tasks: all }));
    store.persist(tasks);
    return store;
  }

  static inMemory(): TaskStore {
    return new TaskStore([], () => {});
  }

  save(task: TaskRecord): void {
    const index = this.tasks.findIndex((t) => t.id === task.id);
    if (index >= 0) this.tasks[index] = task;
    else this.tasks.push(task);
    // Keep every running task and the most recent finished ones.
    const finished = this.tasks.filter((t) => t.status !== "running");
    if (finished.length > KEEP) {
      const drop = new Set(finished.slice(0, finished.length - KEEP).map((t) => t.id));
      this.tasks = this.tasks.filter((t) => !drop.has(t.id));
    }
    this.persist(this.tasks);
  }

  get(id: string): TaskRecord | undefined {
    return this.tasks.find((t) => t.id === id);
  }

  has(id: string): boolean {
    return this.tasks.some((t) => t.id === id);
  }

  /** Newest first. */
  list(): TaskRecord[] {
    return [...this.tasks].sort((a, b) => b.started_at - a.started_at);
  }
}
