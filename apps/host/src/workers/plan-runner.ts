import { randomBytes } from "node:crypto";
import type {
  WorkerCancelFrame,
  WorkerResultAckFrame,
  WorkerResultFrame,
  WorkerStatusFrame,
  WorkerTaskFrame,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { newPlan, type PlanLedger, type PlanRow, pendingSubtask, type SubtaskRow } from "./plan-ledger.ts";
import type { PlanOwner } from "./plan-owner.ts";
import { PlanProgress } from "./plan-progress.ts";
import type { PlannedSubtask } from "./plan-spec.ts";
import { type PlanAction, type PlanEvent, type PlanState, planStep } from "./plan-step.ts";
import { RemoteAttempts } from "./remote-attempts.ts";
import type { WorkerPool } from "./worker-pool.ts";
import type { WorkerRun, WorkerTask } from "./worker-run.ts";

// Runs plans: what happens next is decided by planStep (plan-step.ts) from the plan's rows; this
// file feeds it events — the user's start and /stop, the router's frames, workers ending, timers —
// and does what it answers: ledger transitions, worker slots, aborts, frames, the report. Every
// change is a row in the ledger first, so a restarted host carries on where it was.

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
type ActionHandlers = { [T in PlanAction["type"]]: (action: Extract<PlanAction, { type: T }>) => void };
type Ended = Omit<Extract<PlanEvent, { type: "attemptEnded" }>, "type" | "attemptId" | "now">;

/** Actions that commit with the ledger: the writes, and the report's delivery in the same transaction. */
const inTransaction = (action: PlanAction) => action.type === "ledger" || action.type === "deliverReport";

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
    const after = ledger.transaction(() =>
      lost.flatMap((attempt) => this.commit(attempt.plan_id, { type: "attemptLost", attempt, now: now() })),
    );
    this.perform(after);
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
    const { ledger, now, maxRetries } = this.deps;
    const plan = newPlan(this.newPlanId(), owner, goal, requestId ?? null, now());
    ledger.createPlan(
      plan,
      planned.map((subtask, seq) => pendingSubtask(plan.id, seq, subtask, maxRetries)),
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
    const plans = this.deps.ledger.runningPlans().filter((p) => p.user_id === userId);
    for (const plan of plans) this.handle(plan.id, { type: "stop", reason, now: this.deps.now() });
    return plans;
  }

  // ── frames from the router ──────────────────────────────────────────────────

  onStatus(frame: WorkerStatusFrame): void {
    const attempt = this.deps.ledger.attempt(frame.task_id);
    // The router names the node every status is about: only the attempt's own node counts.
    if (!attempt?.node || frame.from_node !== attempt.node) return;
    if (frame.ok) {
      this.handle(attempt.plan_id, { type: "remoteStarted", attemptId: attempt.id, now: this.deps.now() });
      return;
    }
    const error = frame.error ?? { code: "INTERNAL" as const, message: "refused" };
    this.settle(attempt.id, {
      outcome: "failed",
      error: `${error.code}: ${error.message}`,
      nodeOffline: error.code === "NODE_OFFLINE",
    });
  }

  /** A result from the node that ran it: stored, then acknowledged (a resend is acknowledged again). */
  onResult(frame: WorkerResultFrame): void {
    const attempt = this.deps.ledger.attempt(frame.task_id);
    if (attempt && attempt.node === frame.from_node)
      this.settle(attempt.id, { outcome: frame.outcome, result: frame.result });
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
        for (const plan of this.deps.ledger.runningPlans())
          this.handle(plan.id, { type: "advance", now: this.deps.now() });
      } while (this.pumpAgain);
    } catch (error) {
      this.deps.logger.error({ err: error }, "plan scheduling failed");
    } finally {
      this.pumping = false;
    }
  }

  /** The plan's rows as the step sees them (undefined: no such plan). */
  private stateOf(planId: string): PlanState | undefined {
    const { ledger } = this.deps;
    const plan = ledger.plan(planId);
    if (!plan) return undefined;
    const nodeRetryMs = this.deps.nodeRetryMs ?? 3000;
    return { plan, subtasks: ledger.subtasks(planId), attempts: ledger.attempts(planId), nodeRetryMs };
  }

  /** Steps the plan and does what the step answers, in order. */
  private handle(planId: string, event: PlanEvent): void {
    const state = this.stateOf(planId);
    if (state) this.perform(planStep(state, event).actions);
  }

  /** Steps the plan and writes what it answers; the other actions are returned, to follow the commit. */
  private commit(planId: string, event: PlanEvent): PlanAction[] {
    const state = this.stateOf(planId);
    const actions = state ? planStep(state, event).actions : [];
    this.perform(actions.filter(inTransaction));
    return actions.filter((action) => !inTransaction(action));
  }

  /** An attempt ended: stale and repeated ends are ignored by the step. */
  private settle(attemptId: string, ended: Ended): void {
    this.remote.ended(attemptId);
    if (this.stopped) return; // the host is stopping: the attempt stays open and is LOST at the next start
    const attempt = this.deps.ledger.attempt(attemptId);
    if (attempt)
      this.handle(attempt.plan_id, { type: "attemptEnded", attemptId, ...ended, now: this.deps.now() });
  }

  /** What each action of a step means here: one handler per action type, checked by the compiler. */
  private readonly handlers: ActionHandlers = {
    ledger: (a) => this.deps.ledger.apply(a.transition),
    start: (a) => this.startWorker(a.planId, a.subtaskId, a.node),
    runLocal: (a) => this.runLocal(a),
    sendTask: (a) => this.sendTask(a.frame),
    abort: (a) => this.live.get(a.attemptId)?.controller.abort(new Error(a.reason)),
    cancelRemote: (a) => this.remote.cancel(a.attemptId, a.userId, a.node, a.reason),
    wakeAt: (a) => this.wakeAt(a.at),
    showProgress: (a) => this.progress.show(a.planId, a.immediately),
    writeReport: (a) => void this.finish(a.planId),
    deliverReport: (a) => this.deps.deliverReport(a.plan, a.report),
    pump: () => this.pump(),
    log: (a) => this.deps.logger.info(a.fields, a.message),
  };

  private perform(actions: readonly PlanAction[]): void {
    for (const action of actions) (this.handlers[action.type] as (action: PlanAction) => void)(action);
  }

  /** A worker for the subtask: a free slot here (none free: it waits for a release), or its node. */
  private startWorker(planId: string, subtaskId: string, node: string | null): void {
    const slot = node ? undefined : this.deps.pool.acquire(`${planId}/${subtaskId}`);
    if (!node && slot === undefined) return;
    const attemptId = `w-${(this.deps.newId ?? (() => randomBytes(6).toString("hex")))()}`;
    const state = this.stateOf(planId);
    const event: PlanEvent = { type: "dispatched", subtaskId, attemptId, slot, now: this.deps.now() };
    const actions = state ? planStep(state, event).actions : [];
    if (slot !== undefined && !actions.some((a) => a.type === "runLocal")) this.deps.pool.release(slot);
    this.perform(actions);
  }

  private runLocal({ attemptId, slot, task, owner }: Extract<PlanAction, { type: "runLocal" }>): void {
    const controller = new AbortController();
    this.live.set(attemptId, { controller, slot });
    const run = this.deps
      .runLocal(task, owner, controller.signal)
      .then(
        (run) => this.settle(attemptId, { outcome: run.outcome, result: run.result }),
        (error: unknown) =>
          this.settle(attemptId, {
            outcome: "failed",
            error: `worker crashed: ${(error as Error)?.message}`,
          }),
      )
      .finally(() => {
        this.live.delete(attemptId);
        this.runs.delete(run);
        this.deps.pool.release(slot);
      });
    this.runs.add(run);
  }

  /** To the attempt's node through the router; it counts as TIMEOUT when the node stays silent. */
  private sendTask(frame: WorkerTaskFrame): void {
    const silent = () => {
      const attempt = this.deps.ledger.attempt(frame.task_id);
      if (attempt && !this.stopped)
        this.handle(attempt.plan_id, { type: "remoteSilent", attemptId: attempt.id, now: this.deps.now() });
    };
    if (!this.remote.dispatch(frame, silent))
      queueMicrotask(() =>
        this.settle(frame.task_id, {
          outcome: "failed",
          error: "NODE_OFFLINE: the router is not reachable",
          nodeOffline: true,
        }),
      );
  }

  /** Every subtask has ended: the report is written, then the plan closes with it. */
  private async finish(planId: string): Promise<void> {
    if (this.reporting.has(planId) || this.stopped) return;
    this.reporting.add(planId);
    try {
      const state = this.stateOf(planId);
      if (state?.plan.status !== "running") return;
      const report = await this.deps.writeReport(state.plan, state.subtasks);
      if (this.stopped) return; // written again after the restart
      const event: PlanEvent = { type: "reportWritten", report, now: this.deps.now() };
      this.perform(this.deps.ledger.transaction(() => this.commit(planId, event)));
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
