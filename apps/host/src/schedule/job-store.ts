import { PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import type { JobKind, JobStatus, LatePolicy, NotifyPolicy, ScheduledJob } from "./job.ts";

// The scheduled_jobs table. Due jobs are claimed with one UPDATE … RETURNING, which SQLite runs
// atomically, so two sweepers (or two processes) never get the same job.

export const JOBS_MIGRATION = `
  CREATE TABLE scheduled_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('message', 'check')),
    text TEXT NOT NULL,
    check_command TEXT,
    check_prompt TEXT,
    notify TEXT NOT NULL DEFAULT 'always' CHECK (notify IN ('always', 'on_change', 'on_failure')),
    due_at INTEGER NOT NULL,
    time_zone TEXT NOT NULL,
    every_s INTEGER,
    cron TEXT,
    max_runs INTEGER,
    run_count INTEGER NOT NULL DEFAULT 0,
    late_policy TEXT NOT NULL DEFAULT 'catch_up' CHECK (late_policy IN ('catch_up', 'skip')),
    status TEXT NOT NULL DEFAULT 'pending'
      CHECK (status IN ('pending', 'sent', 'cancelled', 'failed', 'missed')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    created_by TEXT,
    cancelled_by TEXT,
    sent_at INTEGER,
    sent_message_id TEXT,
    last_error TEXT,
    last_result TEXT,
    claimed_by TEXT,
    claimed_at INTEGER
  );
  CREATE INDEX scheduled_jobs_due ON scheduled_jobs (status, due_at);
  CREATE INDEX scheduled_jobs_chat ON scheduled_jobs (user_id, platform, chat_id, status);`;

const JOB_COLUMNS = `id, user_id, platform, chat_id, kind, text, check_command, check_prompt, notify, due_at,
  time_zone, every_s, cron, max_runs, run_count, late_policy, status, created_at, updated_at, created_by,
  cancelled_by, sent_at, sent_message_id, last_error, last_result, claimed_by, claimed_at`;

/**
 * Workspace events: the kind 'event' (SQLite cannot change a CHECK in place, so the table is
 * rebuilt) and the event file a job came from. The AUTOINCREMENT counter is carried over: job ids
 * name outbox deliveries (job-<id>-…), so an id is never given out twice.
 */
export const JOBS_EVENTS_MIGRATION = `
  CREATE TABLE scheduled_jobs_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('message', 'check', 'event')),
    text TEXT NOT NULL,
    check_command TEXT,
    check_prompt TEXT,
    notify TEXT NOT NULL DEFAULT 'always' CHECK (notify IN ('always', 'on_change', 'on_failure')),
    due_at INTEGER NOT NULL,
    time_zone TEXT NOT NULL,
    every_s INTEGER,
    cron TEXT,
    max_runs INTEGER,
    run_count INTEGER NOT NULL DEFAULT 0,
    late_policy TEXT NOT NULL DEFAULT 'catch_up' CHECK (late_policy IN ('catch_up', 'skip')),
    status TEXT NOT NULL DEFAULT 'pending'
      CHECK (status IN ('pending', 'sent', 'cancelled', 'failed', 'missed')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    created_by TEXT,
    cancelled_by TEXT,
    sent_at INTEGER,
    sent_message_id TEXT,
    last_error TEXT,
    last_result TEXT,
    claimed_by TEXT,
    claimed_at INTEGER,
    event_file TEXT,
    event_stamp TEXT
  );
  INSERT INTO scheduled_jobs_next (${JOB_COLUMNS}) SELECT ${JOB_COLUMNS} FROM scheduled_jobs;
  DELETE FROM sqlite_sequence WHERE name = 'scheduled_jobs_next';
  INSERT INTO sqlite_sequence (name, seq)
    SELECT 'scheduled_jobs_next', seq FROM sqlite_sequence WHERE name = 'scheduled_jobs';
  DROP TABLE scheduled_jobs;
  ALTER TABLE scheduled_jobs_next RENAME TO scheduled_jobs;
  CREATE INDEX scheduled_jobs_due ON scheduled_jobs (status, due_at);
  CREATE INDEX scheduled_jobs_chat ON scheduled_jobs (user_id, platform, chat_id, status);
  CREATE INDEX scheduled_jobs_event ON scheduled_jobs (event_file) WHERE event_file IS NOT NULL;`;

export interface NewJob {
  user_id: string;
  platform: string;
  chat_id: string;
  kind: JobKind;
  text: string;
  check_command?: string | null;
  check_prompt?: string | null;
  notify?: NotifyPolicy;
  due_at: number;
  time_zone: string;
  every_s?: number | null;
  cron?: string | null;
  max_runs?: number | null;
  late_policy?: LatePolicy;
  created_by?: string | null;
  event_file?: string | null;
  event_stamp?: string | null;
}

/** What one run of a job changed. */
export interface RunRecord {
  status: JobStatus;
  due_at?: number;
  run_count: number;
  last_error?: string | null;
  last_result?: string | null;
}

export class JobStore {
  /** The sweep runs the same statements every few seconds: each is prepared once. */
  private readonly statements: PreparedStatements;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    this.statements = new PreparedStatements(db);
  }

  get(id: number): ScheduledJob | undefined {
    return this.statements.sql("SELECT * FROM scheduled_jobs WHERE id = ?").get(id) as
      | ScheduledJob
      | undefined;
  }

  create(job: NewJob): ScheduledJob {
    const now = this.now();
    const { lastInsertRowid } = this.statements
      .sql(
        `INSERT INTO scheduled_jobs (user_id, platform, chat_id, kind, text, check_command, check_prompt, notify,
           due_at, time_zone, every_s, cron, max_runs, late_policy, created_at, updated_at, created_by,
           event_file, event_stamp)
         VALUES (@user_id, @platform, @chat_id, @kind, @text, @check_command, @check_prompt, @notify,
           @due_at, @time_zone, @every_s, @cron, @max_runs, @late_policy, @now, @now, @created_by,
           @event_file, @event_stamp)`,
      )
      .run({
        check_command: null,
        check_prompt: null,
        notify: "always",
        every_s: null,
        cron: null,
        max_runs: null,
        late_policy: "catch_up",
        created_by: null,
        event_file: null,
        event_stamp: null,
        ...job,
        now,
      });
    return this.get(Number(lastInsertRowid)) as ScheduledJob;
  }

  /**
   * replace_existing: every pending job in this chat is cancelled. Returns their ids.
   * Events are left alone: they belong to their files (a periodic one would come back from it).
   */
  cancelPendingInChat(job: Pick<NewJob, "user_id" | "platform" | "chat_id">, by: string | null): number[] {
    const rows = this.statements
      .sql(
        `UPDATE scheduled_jobs SET status = 'cancelled', cancelled_by = ?, updated_at = ?
         WHERE user_id = ? AND platform = ? AND chat_id = ? AND status = 'pending' AND event_file IS NULL
         RETURNING id`,
      )
      .all(by, this.now(), job.user_id, job.platform, job.chat_id) as Array<{ id: number }>;
    return rows.map((row) => row.id);
  }

  /** Cancels one of the user's pending jobs; undefined if they have no pending job with that id. */
  cancel(userId: string, id: number, by: string | null): ScheduledJob | undefined {
    const row = this.statements
      .sql(
        `UPDATE scheduled_jobs SET status = 'cancelled', cancelled_by = ?, updated_at = ?
         WHERE id = ? AND user_id = ? AND status = 'pending' RETURNING *`,
      )
      .get(by, this.now(), id, userId);
    return row as ScheduledJob | undefined;
  }

  /** The user's pending jobs (soonest first), or all of their recent ones. */
  list(userId: string, includeFinished = false): ScheduledJob[] {
    const sql = includeFinished
      ? "SELECT * FROM scheduled_jobs WHERE user_id = ? ORDER BY id DESC LIMIT 50"
      : "SELECT * FROM scheduled_jobs WHERE user_id = ? AND status = 'pending' ORDER BY due_at";
    return this.statements.sql(sql).all(userId) as ScheduledJob[];
  }

  /** Pending jobs of periodic events, each kept while its file is in events/. */
  periodicEvents(): ScheduledJob[] {
    return this.statements
      .sql(
        "SELECT * FROM scheduled_jobs WHERE status = 'pending' AND event_file IS NOT NULL AND cron IS NOT NULL",
      )
      .all() as ScheduledJob[];
  }

  /** Whether this event file, as it was read then, is stored already (a crash kept the file). */
  hasEvent(file: string, stamp: string): boolean {
    return (
      this.statements
        .sql("SELECT 1 FROM scheduled_jobs WHERE event_file = ? AND event_stamp = ? LIMIT 1")
        .get(file, stamp) !== undefined
    );
  }

  /** Claims up to `limit` pending jobs due by `now` for `claimer`; nobody else can claim them until released. */
  claimDue(now: number, claimer: string, limit: number): ScheduledJob[] {
    return this.statements
      .sql(
        `UPDATE scheduled_jobs SET claimed_by = ?, claimed_at = ?
         WHERE id IN (SELECT id FROM scheduled_jobs
                      WHERE status = 'pending' AND due_at <= ? AND claimed_by IS NULL ORDER BY due_at LIMIT ?)
           AND claimed_by IS NULL
         RETURNING *`,
      )
      .all(claimer, now, now, limit) as ScheduledJob[];
  }

  /** Records a run and releases the claim. */
  recordRun(id: number, run: RunRecord): void {
    this.statements
      .sql(
        `UPDATE scheduled_jobs SET status = @status, due_at = coalesce(@due_at, due_at), run_count = @run_count,
           last_error = @last_error, last_result = coalesce(@last_result, last_result), updated_at = @now,
           claimed_by = NULL, claimed_at = NULL
         WHERE id = @id`,
      )
      .run({ due_at: null, last_error: null, last_result: null, ...run, id, now: this.now() });
  }

  /** A delivery the router confirmed (or refused). */
  recordDelivery(id: number, result: { ok: boolean; messageId?: string; error?: string }): void {
    if (result.ok)
      this.statements
        .sql("UPDATE scheduled_jobs SET sent_at = ?, sent_message_id = ?, updated_at = ? WHERE id = ?")
        .run(this.now(), result.messageId ?? null, this.now(), id);
    else
      this.statements
        .sql(
          `UPDATE scheduled_jobs SET last_error = ?, updated_at = ?,
             status = CASE WHEN status = 'sent' THEN 'failed' ELSE status END WHERE id = ?`,
        )
        .run(result.error ?? "the chat platform refused the message", this.now(), id);
  }

  /** Claims left by a process that died mid-run; on start, a host's own store has no live claims. */
  releaseClaims(): number {
    return this.statements
      .sql("UPDATE scheduled_jobs SET claimed_by = NULL, claimed_at = NULL WHERE claimed_by IS NOT NULL")
      .run().changes;
  }
}
