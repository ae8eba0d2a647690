import { type WorkerResult, WorkerResult as WorkerResultSchema } from "@phonework/protocol";
import { PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import type { PlannedSubtask } from "./plan-spec.ts";

// Plans, their subtasks and every attempt at one, in the host's state.db: what /plans shows,
// what survives a restart, and the record of when each worker ran. States follow the design:
// a subtask is PENDING → DISPATCHED → RUNNING → COMPLETED | FAILED | TIMEOUT (CANCELLED by /stop);
// an attempt that was under way when the host died is LOST, and its subtask follows the retry policy.

export const PLANS_MIGRATION = `
  CREATE TABLE plans (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    goal TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'stopped')),
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    report TEXT
  );
  CREATE INDEX plans_user ON plans (user_id, created_at);
  CREATE TABLE plan_subtasks (
    plan_id TEXT NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    objective TEXT NOT NULL,
    context TEXT NOT NULL,
    skills TEXT NOT NULL,
    ttl_s INTEGER NOT NULL,
    node TEXT,
    depends_on TEXT NOT NULL,
    max_retries INTEGER NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    worker TEXT,
    last_error TEXT,
    result TEXT,
    started_at INTEGER,
    finished_at INTEGER,
    not_before INTEGER,
    offline_since INTEGER,
    PRIMARY KEY (plan_id, id)
  );
  CREATE TABLE plan_attempts (
    id TEXT PRIMARY KEY,
    plan_id TEXT NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
    subtask_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    node TEXT,
    worker TEXT NOT NULL,
    state TEXT NOT NULL,
    dispatched_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    error TEXT,
    result TEXT
  );
  CREATE INDEX plan_attempts_plan ON plan_attempts (plan_id);
  CREATE TABLE remote_work (
    task_id TEXT PRIMARY KEY,
    from_node TEXT NOT NULL,
    frame TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    finished_at INTEGER
  );`;

/** Plans remember the request that started them (see PlanRow.request_id). */
export const PLANS_REQUEST_MIGRATION = "ALTER TABLE plans ADD COLUMN request_id TEXT;";

export type PlanStatus = "running" | "done" | "failed" | "stopped";
export type SubtaskState =
  | "PENDING"
  | "DISPATCHED"
  | "RUNNING"
  | "COMPLETED"
  | "FAILED"
  | "TIMEOUT"
  | "CANCELLED";
export type AttemptState =
  | "DISPATCHED"
  | "RUNNING"
  | "COMPLETED"
  | "FAILED"
  | "TIMEOUT"
  | "LOST"
  | "CANCELLED";

export const ENDED: ReadonlySet<SubtaskState> = new Set(["COMPLETED", "FAILED", "TIMEOUT", "CANCELLED"]);
/** An attempt in one of these states has a worker on it (here or on its node). */
export const UNDER_WAY: ReadonlySet<AttemptState> = new Set(["DISPATCHED", "RUNNING"]);

export interface PlanRow {
  id: string;
  user_id: string;
  platform: string;
  chat_id: string;
  goal: string;
  status: PlanStatus;
  created_at: number;
  finished_at: number | null;
  report: string | null;
  /**
   * The forwarded request (its `forward.id`) in whose turn the user started the plan: the router
   * relays the plan's subtasks to other nodes only for it. Null for a plan started otherwise (an
   * event's turn), whose subtasks then run here only.
   */
  request_id: string | null;
}

export interface SubtaskRow {
  plan_id: string;
  id: string;
  seq: number;
  objective: string;
  context: string;
  skills: string[];
  ttl_s: number;
  node: string | null;
  depends_on: string[];
  max_retries: number;
  state: SubtaskState;
  attempts: number;
  worker: string | null;
  last_error: string | null;
  result: WorkerResult | null;
  started_at: number | null;
  finished_at: number | null;
  /** A retry waits until then (a node that was offline is asked again). */
  not_before: number | null;
  /** When its node was first found offline: the wait for it ends ttl_s later. */
  offline_since: number | null;
}

export interface AttemptRow {
  id: string;
  plan_id: string;
  subtask_id: string;
  n: number;
  node: string | null;
  worker: string;
  state: AttemptState;
  dispatched_at: number;
  started_at: number | null;
  finished_at: number | null;
  error: string | null;
  result: WorkerResult | null;
}

export type PlanChanges = Partial<Omit<PlanRow, "id">>;
export type SubtaskChanges = Partial<Omit<SubtaskRow, "plan_id" | "id">>;
export type AttemptChanges = Partial<Omit<AttemptRow, "id">>;

/**
 * One named change to a plan's rows (see plan-ledger-transitions.ts), written in one transaction:
 * the attempt it adds, then its attempts', subtasks' and plan's changes.
 */
export interface Transition {
  readonly name: string;
  readonly planId: string;
  readonly newAttempt?: AttemptRow;
  readonly attempts: ReadonlyArray<{ id: string; changes: AttemptChanges }>;
  readonly subtasks: ReadonlyArray<{ id: string; changes: SubtaskChanges }>;
  readonly plan?: PlanChanges;
}

export interface RemoteWorkRow {
  task_id: string;
  from_node: string;
  frame: string;
  received_at: number;
}

/** A plan as the user starts it: running, no report yet. */
export function newPlan(
  id: string,
  owner: { userId: string; chatId: string; platform: string },
  goal: string,
  requestId: string | null,
  now: number,
): PlanRow {
  return {
    id,
    user_id: owner.userId,
    platform: owner.platform,
    chat_id: owner.chatId,
    goal,
    status: "running",
    created_at: now,
    finished_at: null,
    report: null,
    request_id: requestId,
  };
}

/** A subtask as a plan starts it: PENDING, never tried. */
export function pendingSubtask(
  planId: string,
  seq: number,
  planned: PlannedSubtask,
  maxRetries: number,
): SubtaskRow {
  return {
    plan_id: planId,
    id: planned.id,
    seq,
    objective: planned.objective,
    context: planned.context,
    skills: planned.skills,
    ttl_s: planned.ttlS,
    node: planned.node ?? null,
    depends_on: planned.dependsOn,
    max_retries: maxRetries,
    state: "PENDING",
    attempts: 0,
    worker: null,
    last_error: null,
    result: null,
    started_at: null,
    finished_at: null,
    not_before: null,
    offline_since: null,
  };
}

/** The next attempt at a subtask, DISPATCHED to `worker` (a slot here, or the subtask's node). */
export function dispatchedAttempt(subtask: SubtaskRow, id: string, worker: string, at: number): AttemptRow {
  return {
    id,
    plan_id: subtask.plan_id,
    subtask_id: subtask.id,
    n: subtask.attempts + 1,
    node: subtask.node,
    worker,
    state: "DISPATCHED",
    dispatched_at: at,
    started_at: null,
    finished_at: null,
    error: null,
    result: null,
  };
}

const JSON_COLUMNS = new Set(["skills", "depends_on", "result"]);

function toRow<T>(raw: Record<string, unknown> | undefined): T | undefined {
  if (!raw) return undefined;
  const row: Record<string, unknown> = { ...raw };
  for (const column of JSON_COLUMNS) {
    const value = row[column];
    if (typeof value !== "string") continue;
    const parsed = JSON.parse(value);
    row[column] = column === "result" ? (WorkerResultSchema.safeParse(parsed).data ?? null) : parsed;
  }
  return row as T;
}

function toSql(value: unknown): unknown {
  if (value === undefined) return null;
  return Array.isArray(value) || (value !== null && typeof value === "object")
    ? JSON.stringify(value)
    : value;
}

export class PlanLedger {
  private readonly sql: PreparedStatements;

  constructor(private readonly db: SqliteDatabase) {
    this.sql = new PreparedStatements(db);
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : this.db.transaction(fn)();
  }

  createPlan(plan: PlanRow, subtasks: SubtaskRow[]): void {
    this.transaction(() => {
      this.insert("plans", plan);
      for (const subtask of subtasks) this.insert("plan_subtasks", subtask);
    });
  }

  plan(id: string): PlanRow | undefined {
    return toRow(this.sql.sql("SELECT * FROM plans WHERE id = ?").get(id) as Record<string, unknown>);
  }

  hasPlan(id: string): boolean {
    return this.sql.sql("SELECT 1 FROM plans WHERE id = ?").get(id) !== undefined;
  }

  /** The user's plans, newest first. */
  plansOf(userId: string, limit = 20): PlanRow[] {
    const rows = this.sql
      .sql("SELECT * FROM plans WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?")
      .all(userId, limit) as Record<string, unknown>[];
    return rows.map((row) => toRow<PlanRow>(row) as PlanRow);
  }

  runningPlans(): PlanRow[] {
    const rows = this.sql.sql("SELECT * FROM plans WHERE status = 'running' ORDER BY created_at").all();
    return (rows as Record<string, unknown>[]).map((row) => toRow<PlanRow>(row) as PlanRow);
  }

  subtasks(planId: string): SubtaskRow[] {
    const rows = this.sql.sql("SELECT * FROM plan_subtasks WHERE plan_id = ? ORDER BY seq").all(planId);
    return (rows as Record<string, unknown>[]).map((row) => toRow<SubtaskRow>(row) as SubtaskRow);
  }

  subtask(planId: string, id: string): SubtaskRow | undefined {
    return toRow(
      this.sql.sql("SELECT * FROM plan_subtasks WHERE plan_id = ? AND id = ?").get(planId, id) as
        | Record<string, unknown>
        | undefined,
    );
  }

  attempts(planId: string): AttemptRow[] {
    const rows = this.sql
      .sql("SELECT * FROM plan_attempts WHERE plan_id = ? ORDER BY dispatched_at, n")
      .all(planId);
    return (rows as Record<string, unknown>[]).map((row) => toRow<AttemptRow>(row) as AttemptRow);
  }

  attempt(id: string): AttemptRow | undefined {
    return toRow(this.sql.sql("SELECT * FROM plan_attempts WHERE id = ?").get(id) as Record<string, unknown>);
  }

  hasAttempt(id: string): boolean {
    return this.sql.sql("SELECT 1 FROM plan_attempts WHERE id = ?").get(id) !== undefined;
  }

  addAttempt(attempt: AttemptRow): void {
    this.insert("plan_attempts", attempt);
  }

  updatePlan(id: string, changes: PlanChanges): void {
    this.update("plans", "id = ?", [id], changes);
  }

  updateSubtask(planId: string, id: string, changes: SubtaskChanges): void {
    this.update("plan_subtasks", "plan_id = ? AND id = ?", [planId, id], changes);
  }

  updateAttempt(id: string, changes: AttemptChanges): void {
    this.update("plan_attempts", "id = ?", [id], changes);
  }

  /**
   * Writes a named transition in one transaction (nested: it joins the outer one). Through the
   * methods above, so whoever watches them (the subtask bench) sees every change.
   */
  apply(transition: Transition): void {
    this.transaction(() => {
      if (transition.newAttempt) this.addAttempt(transition.newAttempt);
      for (const { id, changes } of transition.attempts) this.updateAttempt(id, changes);
      for (const { id, changes } of transition.subtasks) this.updateSubtask(transition.planId, id, changes);
      if (transition.plan) this.updatePlan(transition.planId, transition.plan);
    });
  }

  /** Forgets plans that ended before `before`, with their subtasks and attempts. */
  prunePlans(before: number): number {
    return this.sql.sql("DELETE FROM plans WHERE status != 'running' AND finished_at < ?").run(before)
      .changes;
  }

  /** Attempts under way when the host stopped: they are LOST now. */
  loseUnfinished(now: number): AttemptRow[] {
    return this.transaction(() => {
      const rows = this.sql
        .sql("SELECT * FROM plan_attempts WHERE state IN ('DISPATCHED', 'RUNNING')")
        .all() as Record<string, unknown>[];
      this.sql
        .sql(
          "UPDATE plan_attempts SET state = 'LOST', finished_at = ?, error = 'lost: the host stopped while it ran' WHERE state IN ('DISPATCHED', 'RUNNING')",
        )
        .run(now);
      return rows.map((row) => toRow<AttemptRow>(row) as AttemptRow);
    });
  }

  // ── work this host runs for another node's plan ─────────────────────────────

  /** False when this task id was seen before: a task runs once, whoever sends it again. */
  addRemoteWork(row: RemoteWorkRow): boolean {
    return (
      this.sql
        .sql("INSERT OR IGNORE INTO remote_work (task_id, from_node, frame, received_at) VALUES (?, ?, ?, ?)")
        .run(row.task_id, row.from_node, row.frame, row.received_at).changes > 0
    );
  }

  /** Done with it (its result is in the outbox, or nobody waits for one); the id stays, so it never runs again. */
  finishRemoteWork(taskId: string, now: number): void {
    this.sql.sql("UPDATE remote_work SET finished_at = ?, frame = '' WHERE task_id = ?").run(now, taskId);
  }

  /** Work not yet finished. */
  remoteWork(): RemoteWorkRow[] {
    return this.sql
      .sql(
        "SELECT task_id, from_node, frame, received_at FROM remote_work WHERE finished_at IS NULL ORDER BY received_at",
      )
      .all() as RemoteWorkRow[];
  }

  /** Forgets the ids of work finished before `before` (a replay that old is long past any TTL). */
  pruneRemoteWork(before: number): void {
    this.sql.sql("DELETE FROM remote_work WHERE finished_at IS NOT NULL AND finished_at < ?").run(before);
  }

  private insert(table: string, row: object): void {
    const entries = Object.entries(row);
    const columns = entries.map(([key]) => key).join(", ");
    const marks = entries.map(() => "?").join(", ");
    this.sql
      .sql(`INSERT INTO ${table} (${columns}) VALUES (${marks})`)
      .run(...entries.map(([, v]) => toSql(v)));
  }

  private update(table: string, where: string, keys: unknown[], changes: object): void {
    const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (entries.length === 0) return;
    const set = entries.map(([key]) => `${key} = ?`).join(", ");
    this.sql
      .sql(`UPDATE ${table} SET ${set} WHERE ${where}`)
      .run(...entries.map(([, v]) => toSql(v)), ...keys);
  }
}
