import { randomBytes } from "node:crypto";
import type {
  WorkerCancelFrame,
  WorkerOutcome,
  WorkerResult,
  WorkerResultAckFrame,
  WorkerResultFrame,
  WorkerStatusFrame,
  WorkerTaskFrame,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import {
  type AttemptRow,
  ENDED,
  type PlanLedger,
  type PlanRow,
  pendingSubtask,
  type SubtaskRow,
} from "./plan-ledger.ts";
import { PlanProgress } from "./plan-progress.ts";
import type { PlannedSubtask } from "./plan-spec.ts";
import { RemoteAttempts } from "./remote-attempts.ts";
import { afterFailure } from "./retry-policy.ts";
import { workerContext } from "./worker-context.ts";
import { type WorkerPool, workerName } from "./worker-pool.ts";
import type { WorkerRun, WorkerTask } from "./worker-run.ts";

// Runs plans: each subtask waits for its dependencies and a free worker (here, or on the node it
// is pinned to), failed and timed-out attempts are retried up to max_retries with the error in
// their context, and once every subtask has ended the master writes one report. Every change is
// a row in the ledger first, so a restarted host carries on where it was.

export interface PlanOwner {
  userId: string;
  chatId: string;
  platform: string;
  /** Only this chat's directory is visible to its commands, not the user's other chats (remote work). */
  isolated?: boolean;
}

export interface PlanRunnerDeps {
  ledger: PlanLedger;
  pool: WorkerPool;
  /** Runs one attempt in a worker of this host; never throws. */
  runLocal: (task: WorkerTask, owner: PlanOwner, signal: AbortSignal) => Promise<WorkerRun>;
  /** To the router; false when the link is down. */
  send: (frame: WorkerTaskFrame | WorkerCancelFrame | WorkerResultAckFrame) => boolean;
  /** The plan's progress message: the same key edits the same chat message. */
  progress: (owner: PlanOwner, text: string, editKey: string) => void;
  /** The master's final report from the results; never throws. */
  writeReport: (plan: PlanRow, subtasks: SubtaskRow[]) => Promise<string>;
  /** Delivers the report; runs inside the transaction that closes the plan (outbox). */
  deliverReport: (plan: PlanRow, text: string) => void;
  now: () => number;
  logger: Logger;
  maxRetries: number;
  progressIntervalMs: number;
  /** How long past its TTL a subtask on another node may stay silent before it counts as TIMEOUT. */
  remoteGraceMs?: number;
  /** How often a subtask whose node is offline asks again. */
  nodeRetryMs?: number;
  newId?: () => string;
}

/** Ended plans are kept this long for /plans, then forgotten at the next start. */
const KEEP_PLANS_MS = 30 * 24 * 3600 * 1000;

type Live = { controller: AbortController; slot: number };

export class PlanRunner {
  private readonly live = new Map<string, Live>();
  private readonly remote: RemoteAttempts;
  private readonly progress: PlanProgress;
  private readonly reporting = new Set<string>();
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeTime = Number.POSITIVE_INFINITY;
  private pumping = false;
  private pumpAgain = false;
  private stopped = false;
  /** Local workers under way, awaited by close() so no process outlives the host. */
  private readonly runs = new Set<Promise<void>>();

  constructor(private readonly deps: PlanRunnerDeps) {
    this.remote = new RemoteAttempts(deps.send, deps.remoteGraceMs ?? 15_000);
    this.progress = new PlanProgress(deps.ledger, deps.progress, deps.progressIntervalMs, deps.now);
    deps.pool.onRelease(() => this.pump());
  }

  /** After a restart: attempts under way are LOST and follow the retry policy; plans carry on. */
  resume(): void {
    const { ledger, now } = this.deps;
    ledger.prunePlans(now() - KEEP_PLANS_MS);
    const lost = ledger.loseUnfinished(now());
    ledger.transaction(() => {
      for (const attempt of lost) this.retryOrEnd(attempt, "FAILED", "lost: the host stopped while it ran");
    });
    for (const attempt of lost.filter((a) => a.node)) this.cancelRemote(attempt, "the master host restarted");
    for (const plan of ledger.runningPlans()) this.progress.show(plan.id, true);
    this.pump();
  }

  /** `requestId`: the forwarded request whose turn starts the plan (see PlanRow.request_id). */
  start(
    owner: PlanOwner,
    goal: string,
    planned: PlannedSubtask[],
    requestId?: string,
  ): { plan: PlanRow; workers: string[] } {
    const { ledger, now } = this.deps;
    const plan: PlanRow = {
      id: this.newPlanId(),
      user_id: owner.userId,
      platform: owner.platform,
      chat_id: owner.chatId,
      goal,
      status: "running",
      created_at: now(),
      finished_at: null,
      report: null,
      request_id: requestId ?? null,
    };
    ledger.createPlan(
      plan,
      planned.map((subtask, seq) => pendingSubtask(plan.id, seq, subtask, this.deps.maxRetries)),
    );
    this.deps.logger.info(
      { planId: plan.id, subtasks: planned.length, userId: owner.userId },
      "plan started",
    );
    this.pump();
    this.progress.show(plan.id, true);
    const workers = ledger.subtasks(plan.id).flatMap((s) => (s.worker ? [s.worker] : []));
    return { plan, workers };
  }

  /** /stop: cancels the user's running plans and kills their workers. Returns the plans stopped. */
  stop(userId: string, reason = "stopped by the user"): PlanRow[] {
    const { ledger, now } = this.deps;
    const plans = ledger.runningPlans().filter((p) => p.user_id === userId);
    for (const plan of plans) {
      const active = ledger
        .attempts(plan.id)
        .filter((a) => a.state === "DISPATCHED" || a.state === "RUNNING");
      ledger.transaction(() => {
        for (const attempt of active)
          ledger.updateAttempt(attempt.id, { state: "CANCELLED", finished_at: now(), error: reason });
        for (const subtask of ledger.subtasks(plan.id).filter((s) => !ENDED.has(s.state)))
          ledger.updateSubtask(plan.id, subtask.id, {
            state: "CANCELLED",
            finished_at: now(),
            last_error: reason,
          });
        ledger.updatePlan(plan.id, { status: "stopped", finished_at: now() });
      });
      for (const attempt of active) {
        this.live.get(attempt.id)?.controller.abort(new Error(reason));
        if (attempt.node) this.cancelRemote(attempt, reason);
      }
      this.progress.show(plan.id, true);
      this.deps.logger.info({ planId: plan.id, cancelled: active.length }, "plan stopped");
    }
    return plans;
  }

  // ── frames from the router ──────────────────────────────────────────────────

  onStatus(frame: WorkerStatusFrame): void {
    const attempt = this.deps.ledger.attempt(frame.task_id);
    // The router names the node every status is about: only the attempt's own node counts.
    if (!attempt?.node || frame.from_node !== attempt.node) return;
    if (attempt.state !== "DISPATCHED" && attempt.state !== "RUNNING") return;
    if (frame.ok) {
      if (attempt.state === "RUNNING") return;
      const started = this.deps.now();
      this.deps.ledger.transaction(() => {
        this.deps.ledger.updateAttempt(attempt.id, { state: "RUNNING", started_at: started });
        const subtask = this.deps.ledger.subtask(attempt.plan_id, attempt.subtask_id);
        this.deps.ledger.updateSubtask(attempt.plan_id, attempt.subtask_id, {
          state: "RUNNING",
          started_at: subtask?.started_at ?? started,
          offline_since: null,
        });
      });
      this.progress.show(attempt.plan_id);
      return;
    }
    const error = frame.error ?? { code: "INTERNAL" as const, message: "refused" };
    this.settle(
      attempt.id,
      "failed",
      undefined,
      `${error.code}: ${error.message}`,
      error.code === "NODE_OFFLINE",
    );
  }

  /** A result from the node that ran it: stored, then acknowledged (a resend is acknowledged again). */
  onResult(frame: WorkerResultFrame): void {
    const attempt = this.deps.ledger.attempt(frame.task_id);
    if (attempt && attempt.node === frame.from_node) this.settle(attempt.id, frame.outcome, frame.result);
    else
      this.deps.logger.warn(
        { taskId: frame.task_id, from: frame.from_node },
        "worker result for no task of ours",
      );
    this.deps.send({ type: "worker_result_ack", delivery_id: frame.delivery_id });
  }

  /** Stops timers and local workers (host shutdown); the ledger keeps everything for resume(). */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.wakeTimer);
    this.progress.close();
    this.remote.close();
    for (const live of this.live.values()) live.controller.abort(new Error("host stopping"));
    await Promise.allSettled([...this.runs]);
  }

  // ── scheduling ─────────────────────────────────────────────────────────────

  /** Starts every subtask that can start now; closes plans whose subtasks have all ended. */
  pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        for (const plan of this.deps.ledger.runningPlans()) this.advance(plan);
      } while (this.pumpAgain);
    } catch (error) {
      this.deps.logger.error({ err: error }, "plan scheduling failed");
    } finally {
      this.pumping = false;
    }
  }

  private advance(plan: PlanRow): void {
    const { ledger, now } = this.deps;
    const subtasks = ledger.subtasks(plan.id);
    const byId = new Map(subtasks.map((s) => [s.id, s]));
    for (const subtask of subtasks) {
      if (subtask.state !== "PENDING") continue;
      const deps = subtask.depends_on.map((id) => byId.get(id));
      const failed = deps.find((d) => d && ENDED.has(d.state) && d.state !== "COMPLETED");
      if (failed) {
        const error = `skipped: it needed [${failed.id}], which ${failed.state === "CANCELLED" ? "was cancelled" : "failed"}`;
        ledger.updateSubtask(plan.id, subtask.id, { state: "FAILED", last_error: error, finished_at: now() });
        subtask.state = "FAILED";
        continue;
      }
      if (deps.some((d) => d?.state !== "COMPLETED")) continue;
      if (subtask.not_before !== null && subtask.not_before > now()) {
        this.wakeAt(subtask.not_before);
        continue;
      }
      const started = subtask.node
        ? this.dispatchRemote(plan, subtask, byId)
        : this.dispatchLocal(plan, subtask, byId);
      if (started) subtask.state = "DISPATCHED";
    }
    if (subtasks.every((s) => ENDED.has(s.state))) void this.finish(plan.id);
    else this.progress.show(plan.id);
  }

  private newAttempt(plan: PlanRow, subtask: SubtaskRow, worker: string): AttemptRow {
    const attempt: AttemptRow = {
      id: `w-${(this.deps.newId ?? (() => randomBytes(6).toString("hex")))()}`,
      plan_id: plan.id,
      subtask_id: subtask.id,
      n: subtask.attempts + 1,
      node: subtask.node,
      worker,
      state: "DISPATCHED",
      dispatched_at: this.deps.now(),
      started_at: null,
      finished_at: null,
      error: null,
      result: null,
    };
    this.deps.ledger.transaction(() => {
      this.deps.ledger.addAttempt(attempt);
      this.deps.ledger.updateSubtask(plan.id, subtask.id, {
        state: "DISPATCHED",
        attempts: attempt.n,
        worker,
        not_before: null,
      });
    });
    return attempt;
  }

  private dispatchLocal(plan: PlanRow, subtask: SubtaskRow, byId: Map<string, SubtaskRow>): boolean {
    const { ledger, now, pool } = this.deps;
    const slot = pool.acquire(`${plan.id}/${subtask.id}`);
    if (slot === undefined) return false;
    const attempt = this.newAttempt(plan, subtask, workerName(slot));
    const started = now();
    ledger.transaction(() => {
      ledger.updateAttempt(attempt.id, { state: "RUNNING", started_at: started });
      ledger.updateSubtask(plan.id, subtask.id, {
        state: "RUNNING",
        started_at: subtask.started_at ?? started,
      });
    });
    const controller = new AbortController();
    this.live.set(attempt.id, { controller, slot });
    const owner = { userId: plan.user_id, chatId: plan.chat_id, platform: plan.platform };
    const task = this.taskOf(attempt.id, subtask, byId);
    const run = this.deps
      .runLocal(task, owner, controller.signal)
      .then(
        (run) => this.settle(attempt.id, run.outcome, run.result),
        (error: unknown) =>
          this.settle(attempt.id, "failed", undefined, `worker crashed: ${(error as Error)?.message}`),
      )
      .finally(() => {
        this.live.delete(attempt.id);
        this.runs.delete(run);
        pool.release(slot);
      });
    this.runs.add(run);
    return true;
  }

  private dispatchRemote(plan: PlanRow, subtask: SubtaskRow, byId: Map<string, SubtaskRow>): boolean {
    const node = subtask.node as string;
    const attempt = this.newAttempt(plan, subtask, `Worker@${node}`);
    const task = this.taskOf(attempt.id, subtask, byId);
    const frame = {
      type: "worker_task" as const,
      task_id: attempt.id,
      plan_id: plan.id,
      ...(plan.request_id ? { request_id: plan.request_id } : {}),
      user_id: plan.user_id,
      platform: plan.platform,
      chat_id: plan.chat_id,
      node,
      objective: task.objective,
      context: task.context,
      skills: task.skills,
      ttl_s: task.ttlS,
    };
    const silent = () => {
      this.remote.cancel(attempt.id, plan.user_id, node, "timed out");
      this.settle(attempt.id, "timeout", undefined, `no result from node ${node} within ${subtask.ttl_s}s`);
    };
    if (!this.remote.dispatch(frame, silent))
      queueMicrotask(() =>
        this.settle(attempt.id, "failed", undefined, "NODE_OFFLINE: the router is not reachable", true),
      );
    return true;
  }

  private taskOf(taskId: string, subtask: SubtaskRow, byId: Map<string, SubtaskRow>): WorkerTask {
    const inputs = subtask.depends_on.flatMap((id) => {
      const dep = byId.get(id);
      return dep?.result ? [{ id, result: dep.result }] : [];
    });
    return {
      taskId,
      objective: subtask.objective,
      context: workerContext(subtask.context, inputs, subtask.attempts > 0 ? subtask.last_error : null),
      skills: subtask.skills,
      ttlS: subtask.ttl_s,
    };
  }

  /** An attempt ended: record it, and retry its subtask or end it. Stale and repeated ends are ignored. */
  private settle(
    attemptId: string,
    outcome: WorkerOutcome,
    result: WorkerResult | undefined,
    error?: string,
    nodeOffline = false,
  ): void {
    this.remote.ended(attemptId);
    if (this.stopped) return; // the host is stopping: the attempt stays open and is LOST at the next start
    const { ledger, now } = this.deps;
    const attempt = ledger.attempt(attemptId);
    if (!attempt || (attempt.state !== "DISPATCHED" && attempt.state !== "RUNNING")) return;
    const state = outcome === "completed" ? "COMPLETED" : outcome === "timeout" ? "TIMEOUT" : "FAILED";
    const reason =
      error ?? (result?.errors.join("; ") || (state === "COMPLETED" ? null : (result?.result ?? "failed")));
    ledger.transaction(() => {
      ledger.updateAttempt(attempt.id, { state, finished_at: now(), error: reason, result: result ?? null });
      if (state === "COMPLETED") {
        ledger.updateSubtask(attempt.plan_id, attempt.subtask_id, {
          state: "COMPLETED",
          result: result ?? null,
          last_error: null,
          finished_at: now(),
        });
      } else this.retryOrEnd(attempt, state, reason ?? "failed", nodeOffline);
    });
    this.deps.logger.info(
      { planId: attempt.plan_id, subtask: attempt.subtask_id, state },
      "worker attempt ended",
    );
    this.progress.show(attempt.plan_id);
    this.pump();
  }

  /** Inside a transaction: the subtask is retried or ends (see afterFailure). */
  private retryOrEnd(
    attempt: AttemptRow,
    state: "FAILED" | "TIMEOUT",
    error: string,
    nodeOffline = false,
  ): void {
    const subtask = this.deps.ledger.subtask(attempt.plan_id, attempt.subtask_id);
    if (!subtask || ENDED.has(subtask.state)) return;
    const changes = afterFailure({
      subtask,
      attempt,
      state,
      error,
      nodeOffline,
      now: this.deps.now(),
      nodeRetryMs: this.deps.nodeRetryMs ?? 3000,
    });
    this.deps.ledger.updateSubtask(subtask.plan_id, subtask.id, changes);
  }

  private cancelRemote(attempt: AttemptRow, reason: string): void {
    const plan = this.deps.ledger.plan(attempt.plan_id);
    if (attempt.node && plan) this.remote.cancel(attempt.id, plan.user_id, attempt.node, reason);
  }

  private async finish(planId: string): Promise<void> {
    if (this.reporting.has(planId) || this.stopped) return;
    this.reporting.add(planId);
    try {
      const { ledger, now } = this.deps;
      const plan = ledger.plan(planId);
      if (plan?.status !== "running") return;
      const subtasks = ledger.subtasks(planId);
      const report = await this.deps.writeReport(plan, subtasks);
      if (this.stopped) return; // written again after the restart
      const status = subtasks.some((s) => s.state === "COMPLETED") ? "done" : "failed";
      ledger.transaction(() => {
        if (ledger.plan(planId)?.status !== "running") return; // stopped while the report was written
        ledger.updatePlan(planId, { status, finished_at: now(), report });
        this.deps.deliverReport({ ...plan, status, report }, report);
      });
      this.progress.show(planId, true);
      this.deps.logger.info({ planId, status }, "plan finished");
    } catch (error) {
      this.deps.logger.error({ err: error, planId }, "could not finish the plan");
    } finally {
      this.reporting.delete(planId);
    }
  }

  /** Pumps again at `at` (the earliest of the waits asked for). */
  private wakeAt(at: number): void {
    if (at >= this.wakeTime) return;
    clearTimeout(this.wakeTimer);
    this.wakeTime = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTime = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.max(0, at - this.deps.now()) + 10,
    ).unref();
  }

  private newPlanId(): string {
    for (;;) {
      const id = `p${randomBytes(2).toString("hex")}`;
      if (!this.deps.ledger.hasPlan(id)) return id;
    }
  }
}
