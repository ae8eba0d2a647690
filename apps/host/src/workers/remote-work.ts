import type {
  ErrorCode,
  WorkerCancelFrame,
  WorkerResult,
  WorkerResultFrame,
  WorkerStatusFrame,
  WorkerTaskFrame,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { PlanLedger } from "./plan-ledger.ts";
import type { PlanOwner } from "./plan-owner.ts";
import type { WorkerPool } from "./worker-pool.ts";
import type { WorkerRun, WorkerTask } from "./worker-run.ts";

// Subtasks another node's plan sends here (the router relays them only for a plan the user started
// on that node). Each is recorded before it is accepted, runs in one of this host's worker slots,
// with none of the user's chats here in sight, and its result leaves through the outbox in the same transaction that
// forgets it: a router restart loses nothing, and work cut off by this host's own restart is
// reported to the master as lost (its retry policy decides what happens next).

const HOST_STOPPING = "host stopping";

/** Where subtasks from other nodes run: a channel of their own per user and master, never a chat. */
export const REMOTE_WORK_PLATFORM = "worker";

/**
 * Who a subtask from another node runs as: its user, in a channel this host makes for that user's
 * work from that master (never the chat the frame names), seeing none of the user's chats here.
 */
export function remoteWorkOwner(userId: string, master: string): PlanOwner {
  return { userId, platform: REMOTE_WORK_PLATFORM, chatId: `${master}:${userId}`, isolated: true };
}
/** How long the ids of finished work are kept, so a replayed task is refused rather than run again. */
const REMEMBER_DONE_MS = 7 * 24 * 3600 * 1000;

export interface RemoteWorkDeps {
  ledger: PlanLedger;
  pool: WorkerPool;
  runLocal: (task: WorkerTask, owner: PlanOwner, signal: AbortSignal) => Promise<WorkerRun>;
  send: (frame: WorkerStatusFrame) => boolean;
  /** Puts the result in the outbox (called inside the transaction that forgets the work). */
  enqueueResult: (frame: Omit<WorkerResultFrame, "delivery_id">, deliveryId: string) => void;
  /** Skills this host's workers have. */
  skills: readonly string[];
  /** This host's own SERVES_USERS rule (the router checked already; a host does not rely on it). */
  servesUser: (userId: string) => boolean;
  /** Tasks waiting for a slot; past it a new one is refused with QUEUE_FULL. */
  maxQueued: number;
  now: () => number;
  logger: Logger;
}

export class RemoteWork {
  private readonly queue: WorkerTaskFrame[] = [];
  private readonly running = new Map<string, { controller: AbortController; from: string }>();
  private readonly cancelled = new Set<string>();
  private readonly runs = new Set<Promise<void>>();

  constructor(private readonly deps: RemoteWorkDeps) {
    deps.pool.onRelease(() => this.pump());
  }

  /** At start: work that was under way when this host stopped is reported lost. */
  resume(): void {
    this.deps.ledger.pruneRemoteWork(this.deps.now() - REMEMBER_DONE_MS);
    for (const row of this.deps.ledger.remoteWork()) {
      const frame = JSON.parse(row.frame) as WorkerTaskFrame;
      this.finish(frame, "failed", this.failure(frame, "lost: the worker's host restarted while it ran", 0));
    }
  }

  onTask(frame: WorkerTaskFrame): void {
    const refusal = this.accept(frame);
    if (refusal) {
      this.deps.logger.warn(
        { taskId: frame.task_id, from: frame.from_node, code: refusal.code },
        refusal.message,
      );
      this.deps.send({ type: "worker_status", task_id: frame.task_id, ok: false, error: refusal });
      return;
    }
    this.deps.send({ type: "worker_status", task_id: frame.task_id, ok: true });
    this.pump();
  }

  /** Records and queues the task; or why it is refused. A task sent again is accepted again. */
  private accept(frame: WorkerTaskFrame): { code: ErrorCode; message: string } | undefined {
    if (!frame.from_node) return { code: "BAD_FRAME", message: "a worker task must come through the router" };
    // The router relays a task only for a plan the user started on its master, and says which: a
    // task that does not say came through a router that did not check (an older one).
    if (!frame.plan_id || !frame.request_id)
      return {
        code: "UNAUTHORIZED",
        message: "a worker task must name the plan and request that started it",
      };
    if (!this.deps.servesUser(frame.user_id))
      return { code: "UNAUTHORIZED", message: "this node does not serve that user" };
    const unknown = frame.skills.filter((skill) => !this.deps.skills.includes(skill));
    if (unknown.length > 0)
      return {
        code: "BAD_FRAME",
        message: `this node's workers cannot use ${unknown.join(", ")} (they have ${this.deps.skills.join(", ")})`,
      };
    if (this.running.has(frame.task_id) || this.queue.some((t) => t.task_id === frame.task_id))
      return undefined;
    if (this.queue.length >= this.deps.maxQueued && this.deps.pool.free() === 0)
      return { code: "QUEUE_FULL", message: `all workers busy and ${this.queue.length} tasks waiting` };
    const row = {
      task_id: frame.task_id,
      from_node: frame.from_node,
      frame: JSON.stringify(frame),
      received_at: this.deps.now(),
    };
    if (!this.deps.ledger.addRemoteWork(row))
      return { code: "BAD_FRAME", message: "this task id was already run here" };
    this.queue.push(frame);
    return undefined;
  }

  onCancel(frame: WorkerCancelFrame): void {
    const index = this.queue.findIndex((t) => t.task_id === frame.task_id && t.from_node === frame.from_node);
    if (index >= 0) {
      this.queue.splice(index, 1);
      this.deps.ledger.finishRemoteWork(frame.task_id, this.deps.now());
      return;
    }
    const live = this.running.get(frame.task_id);
    if (!live || live.from !== frame.from_node) return;
    this.cancelled.add(frame.task_id);
    live.controller.abort(new Error(frame.reason));
  }

  /** Host shutdown: running work is aborted and stays recorded, to be reported lost at the next start. */
  async close(): Promise<void> {
    this.queue.length = 0;
    for (const [taskId, live] of this.running) {
      this.cancelled.add(taskId);
      live.controller.abort(new Error(HOST_STOPPING));
    }
    await Promise.allSettled([...this.runs]);
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const frame = this.queue[0] as WorkerTaskFrame;
      const slot = this.deps.pool.acquire(`${frame.from_node}/${frame.task_id}`);
      if (slot === undefined) return;
      this.queue.shift();
      this.run(frame, slot);
    }
  }

  private run(frame: WorkerTaskFrame, slot: number): void {
    const controller = new AbortController();
    this.running.set(frame.task_id, { controller, from: frame.from_node as string });
    const owner = {
      ...remoteWorkOwner(frame.user_id, frame.from_node as string),
      ...(frame.plan_id ? { planId: frame.plan_id } : {}),
    };
    const task = {
      taskId: frame.task_id,
      objective: frame.objective,
      context: frame.context,
      skills: frame.skills,
      ttlS: frame.ttl_s,
    };
    const started = this.deps.now();
    const run: Promise<void> = this.deps
      .runLocal(task, owner, controller.signal)
      .catch(
        (error: unknown): WorkerRun => ({
          outcome: "failed",
          result: this.failure(frame, `worker crashed: ${(error as Error)?.message}`, started),
        }),
      )
      .then((run) => {
        this.running.delete(frame.task_id);
        // Cancelled by the master, or cut short by our own shutdown: nobody waits for this result.
        if (this.cancelled.delete(frame.task_id)) {
          if (controller.signal.reason?.message !== HOST_STOPPING)
            this.deps.ledger.finishRemoteWork(frame.task_id, this.deps.now());
        } else this.finish(frame, run.outcome, run.result);
      })
      .finally(() => {
        this.runs.delete(run);
        this.deps.pool.release(slot);
      });
    this.runs.add(run);
  }

  private finish(frame: WorkerTaskFrame, outcome: WorkerRun["outcome"], result: WorkerResult): void {
    this.deps.ledger.transaction(() => {
      this.deps.enqueueResult(
        {
          type: "worker_result",
          task_id: frame.task_id,
          user_id: frame.user_id,
          node: frame.from_node as string,
          outcome,
          result,
        },
        `worker-${frame.task_id}`,
      );
      this.deps.ledger.finishRemoteWork(frame.task_id, this.deps.now());
    });
  }

  private failure(frame: WorkerTaskFrame, error: string, started: number): WorkerResult {
    const duration = started ? Math.round((this.deps.now() - started) / 1000) : 0;
    return {
      task_id: frame.task_id,
      status: "failed",
      result: error,
      artifacts: [],
      duration,
      errors: [error],
    };
  }
}
