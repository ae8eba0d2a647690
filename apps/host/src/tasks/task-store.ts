import { type Logger, openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { z } from "zod";
import { importLegacyJsonFile } from "../storage/legacy-state-file.ts";

// Background tasks, kept in the host's state.db so /tasks survives a restart and a task's end
// commits in the same transaction as the outbox item that announces it. A task that was running
// when the host died is marked `lost` on the next start, never silently dropped.

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

/** tasks.json, where older hosts kept them: imported on the first open, then renamed. */
const TaskFile = z.object({ version: z.literal(1), tasks: z.array(TaskRecord) });
const KEEP = 100;

export const TASKS_MIGRATION = `
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    command TEXT NOT NULL,
    cwd TEXT NOT NULL,
    user_id TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER,
    exit_code INTEGER,
    output TEXT NOT NULL
  );`;

export class TaskStore {
  private readonly statements: PreparedStatements;

  private constructor(private readonly db: SqliteDatabase) {
    this.statements = new PreparedStatements(db);
  }

  /** Imports `legacyJsonPath` once if it is there, and marks tasks still `running` as `lost`. */
  static open(db: SqliteDatabase, now: number, legacyJsonPath?: string, logger?: Logger): TaskStore {
    const store = new TaskStore(db);
    const importTasks = (file: z.infer<typeof TaskFile>) => {
      for (const task of file.tasks) store.save(task);
    };
    if (legacyJsonPath) importLegacyJsonFile(db, legacyJsonPath, TaskFile, importTasks, logger);
    db.prepare("UPDATE tasks SET status = 'lost', finished_at = ? WHERE status = 'running'").run(now);
    return store;
  }

  static inMemory(): TaskStore {
    return new TaskStore(openDatabase(":memory:", { migrations: [TASKS_MIGRATION] }));
  }

  save(task: TaskRecord): void {
    this.db.transaction(() => {
      this.statements
        .sql(
          `INSERT OR REPLACE INTO tasks (id, kind, description, command, cwd, user_id, chat_id, platform,
             status, started_at, finished_at, exit_code, output)
           VALUES (@id, @kind, @description, @command, @cwd, @user_id, @chat_id, @platform,
             @status, @started_at, @finished_at, @exit_code, @output)`,
        )
        .run({ ...task, finished_at: task.finished_at ?? null, exit_code: task.exit_code ?? null });
      // Keep every running task and the most recent finished ones.
      this.statements
        .sql(
          `DELETE FROM tasks WHERE status != 'running' AND id NOT IN
             (SELECT id FROM tasks WHERE status != 'running' ORDER BY started_at DESC, rowid DESC LIMIT ?)`,
        )
        .run(KEEP);
    })();
  }

  get(id: string): TaskRecord | undefined {
    return fromRow(this.statements.sql("SELECT * FROM tasks WHERE id = ?").get(id));
  }

  has(id: string): boolean {
    return this.statements.sql("SELECT 1 FROM tasks WHERE id = ?").get(id) !== undefined;
  }

  /** Newest first. */
  list(): TaskRecord[] {
    const rows = this.statements.sql("SELECT * FROM tasks ORDER BY started_at DESC, rowid ASC").all();
    return rows.map(fromRow).filter((task) => task !== undefined);
  }
}

/** A row read back through the schema; one that does not fit (edited by hand, say) is skipped. */
function fromRow(row: unknown): TaskRecord | undefined {
  if (row === undefined) return undefined;
  const fields = Object.entries(row as Record<string, unknown>).filter(([, value]) => value !== null);
  const parsed = TaskRecord.safeParse(Object.fromEntries(fields));
  return parsed.success ? parsed.data : undefined;
}
