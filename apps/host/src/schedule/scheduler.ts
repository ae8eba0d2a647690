import { createHash, randomUUID } from "node:crypto";
import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { DeliveryResult, Outbox } from "../delivery/outbox.ts";
import { isRecurring, type ScheduledJob } from "./job.ts";
import type { JobStore, RunRecord } from "./job-store.ts";
import { nextRun } from "./recurrence.ts";
import { formatTime } from "./when.ts";

// Fires due jobs. Each sweep claims what is due (atomically, see JobStore.claimDue), runs it, and
// in one transaction puts the message in the durable outbox and records the run: a job is never
// sent twice, and a send that is recorded is never lost (the outbox resends until the router acks).

export interface CheckOutcome {
  ok: boolean;
  output: string;
}

/** Runs a check job's command or coding prompt. */
export type CheckRunner = (job: ScheduledJob, signal: AbortSignal) => Promise<CheckOutcome>;

/**
 * Hands an event job's text to the assistant as a turn in the job's chat; resolves with its
 * answer. The turn keeps its own history, so the scheduler does not `remember` what it sends.
 */
export type EventRunner = (job: ScheduledJob, signal: AbortSignal) => Promise<string>;

export interface SchedulerDeps {
  db: SqliteDatabase;
  store: JobStore;
  outbox: Outbox;
  runCheck: CheckRunner;
  /** Without one, an event's text is sent as is. */
  runEvent?: EventRunner;
  /** Adds a sent message to the chat's context, so the assistant knows what it said. */
  remember: (owner: ChatOwner, text: string) => void;
  now: () => number;
  logger: Logger;
  /** A run this much past its due time counts as late (the host was down or asleep). */
  lateAfterMs: number;
}

const DELIVERY_PREFIX = "job-";
/** The outbox origin of a job's messages: the feature, and the job's id as the ref. */
const SCHEDULE_ORIGIN = "schedule";
const MAX_CHECK_OUTPUT = 1500;
const BATCH_SIZE = 20;
const MAX_BATCHES = 50;

const digest = (outcome: CheckOutcome) =>
  `${outcome.ok ? "ok" : "fail"}:${createHash("sha256").update(outcome.output).digest("hex").slice(0, 16)}`;

export class Scheduler {
  private readonly claimer = randomUUID();
  private readonly stopping = new AbortController();
  private sweeping: Promise<number> | undefined;
  private timer: NodeJS.Timeout | undefined;

  private runEvent: EventRunner | undefined;

  constructor(private readonly deps: SchedulerDeps) {
    this.runEvent = deps.runEvent;
  }

  /** Events wake `run` (the assistant) from now on, instead of being sent as written. */
  useEventRunner(run: EventRunner): void {
    this.runEvent = run;
  }

  /** Sweeps every `tickMs` until stopped. Claims left by a crashed run are released first. */
  start(tickMs: number): void {
    const released = this.deps.store.releaseClaims();
    if (released > 0) this.deps.logger.warn({ released }, "released job claims left by an earlier run");
    this.timer = setInterval(() => void this.sweep(), tickMs);
    this.timer.unref();
    void this.sweep();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopping.abort(new Error("host stopping"));
    await this.sweeping;
  }

  /** Runs every job due now; resolves with how many ran. One sweep at a time per scheduler. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** The router's answer for a job's message: fills in sent time and message id, or the error. */
  handleDelivery(result: DeliveryResult): void {
    if (result.origin?.feature === SCHEDULE_ORIGIN)
      this.deps.store.recordDelivery(Number(result.origin.ref), result);
  }

  private async sweepOnce(): Promise<number> {
    let ran = 0;
    // Small batches: a long check does not hold claims on everything else that is due.
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const jobs = this.deps.store.claimDue(this.deps.now(), this.claimer, BATCH_SIZE);
      if (jobs.length === 0) break;
      await this.runAll(jobs);
      ran += jobs.length;
    }
    return ran;
  }

  private async runAll(jobs: ScheduledJob[]): Promise<void> {
    for (const job of jobs) {
      try {
        await this.run(job);
      } catch (error) {
        this.deps.logger.error({ err: error, jobId: job.id }, "scheduled job failed");
        this.record(job, {
          status: isRecurring(job) ? "pending" : "failed",
          run_count: job.run_count,
          ...(isRecurring(job) ? { due_at: nextRun(job, job.due_at, this.deps.now()) } : {}),
          last_error: (error as Error)?.message ?? String(error),
        });
      }
    }
  }

  private async run(job: ScheduledJob): Promise<void> {
    const now = this.deps.now();
    const late = now - job.due_at > this.deps.lateAfterMs;
    const log = this.deps.logger.child({ jobId: job.id, kind: job.kind, late });
    if (late && job.late_policy === "skip") {
      if (isRecurring(job)) {
        // Missed runs of a recurring job are not replayed; it simply carries on from now.
        log.info("skipping missed runs; re-armed from now");
        this.record(job, {
          status: "pending",
          run_count: job.run_count,
          due_at: nextRun(job, job.due_at, now),
        });
      } else {
        log.info("missed while the host was down; telling the user");
        this.send(job, "missed", missedText(job), { status: "missed", run_count: job.run_count });
      }
      return;
    }

    const runCount = job.run_count + 1;
    const finished = !isRecurring(job) || (job.max_runs !== null && runCount >= job.max_runs);
    const after: RunRecord = {
      status: finished ? "sent" : "pending",
      run_count: runCount,
      ...(finished ? {} : { due_at: nextRun(job, job.due_at, now) }),
    };
    const lateNote = late
      ? `(late: was due ${formatTime(job.due_at, job.time_zone)}; this host was offline) `
      : "";

    if (job.kind === "message") {
      this.send(job, `run-${runCount}`, `⏰ ${lateNote}${withoutAlarm(job.text)}`, after);
      return;
    }
    if (job.kind === "event") {
      const runEvent = this.runEvent;
      const answer = runEvent ? await runEvent(job, this.stopping.signal) : job.text;
      // Cut short by the host stopping: left claimed, released at the next start, run again then.
      if (this.stopping.signal.aborted) return;
      log.info("event answered");
      this.send(job, `run-${runCount}`, `${lateNote}${answer}`, after, !runEvent);
      return;
    }
    const outcome = await this.deps.runCheck(job, this.stopping.signal).catch(
      (error: unknown): CheckOutcome => ({
        ok: false,
        output: `could not run: ${(error as Error)?.message ?? error}`,
      }),
    );
    const result = digest(outcome);
    const report =
      job.notify === "always" ||
      (job.notify === "on_failure" && !outcome.ok) ||
      (job.notify === "on_change" && result !== job.last_result);
    const record = {
      ...after,
      last_result: result,
      last_error: outcome.ok ? null : outcome.output.slice(0, 500),
    };
    log.info({ ok: outcome.ok, report }, "check ran");
    if (report) this.send(job, `run-${runCount}`, `${lateNote}${checkText(job, outcome)}`, record);
    else this.record(job, record);
  }

  /** Queues the message and records the run in one transaction, then adds it to the conversation. */
  private send(job: ScheduledJob, run: string, text: string, record: RunRecord, remember = true): void {
    this.deps.db.transaction(() => {
      this.deps.outbox.enqueue(
        {
          type: "notify",
          user_id: job.user_id,
          platform: job.platform,
          chat_id: job.chat_id,
          text,
          alert: "reminder",
        },
        `${DELIVERY_PREFIX}${job.id}-${run}`,
        { feature: SCHEDULE_ORIGIN, ref: String(job.id) },
      );
      this.deps.store.recordRun(job.id, record);
    })();
    if (remember)
      this.deps.remember({ userId: job.user_id, chatId: job.chat_id, platform: job.platform }, text);
  }

  private record(job: ScheduledJob, record: RunRecord): void {
    this.deps.store.recordRun(job.id, record);
  }
}

function checkText(job: ScheduledJob, outcome: CheckOutcome): string {
  const output = outcome.output.trim();
  const shown =
    output.length > MAX_CHECK_OUTPUT ? `${output.slice(0, MAX_CHECK_OUTPUT)}… [truncated]` : output;
  const head = `🔎 Check #${job.id} (${job.text}): ${outcome.ok ? "✅ passed" : "❌ failed"}`;
  return shown ? `${head}\n\n${shown}` : head;
}

function missedText(job: ScheduledJob): string {
  return `⏭️ Missed reminder #${job.id}, due ${formatTime(job.due_at, job.time_zone)}: "${job.text}". It was not sent because this host was offline then.`;
}

/** A reminder's text without the ⏰ it may already start with: it is shown once. */
const withoutAlarm = (text: string) => text.replace(/^⏰\uFE0F?\s*/u, "");
