import {
  type ErrorCode,
  type HostWorkerFrame,
  WORKERS_CAPABILITY,
  type WorkerCancelFrame,
  type WorkerResultAckFrame,
  type WorkerResultFrame,
  type WorkerStatusFrame,
  type WorkerTaskFrame,
} from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { servesUser } from "../registry/node-info.ts";
import type { LiveConnection, NodeDirectory, NodeRegistry, NodeSender } from "../registry/node-registry.ts";
import { BoundedMap } from "../storage/bounded-map.ts";
import type { PlanGrants } from "./plan-grants.ts";
import { DEFAULT_WORKER_TASK_LIMITS, InFlightTasks, type WorkerTaskLimits } from "./worker-tasks.ts";

// Master/Worker across nodes: a master's worker_task goes to the node that runs it; that node's
// worker_status and worker_result go back; the master's ack and cancel follow. Only the router
// knows who sent a frame, so it writes every `from_node` itself, and it relays only between two
// nodes that both serve the task's user, and only for a plan that user started on the master
// (plan-grants.ts): a node shared with a user cannot send work to that user's other nodes on its
// own. The chat a task is for is the router's record of that plan's request, never the frame's.

/** When a worker is told to send a result again whose master is offline (it stays in its outbox). */
const MASTER_OFFLINE_RETRY_S = 5;

export interface WorkerRelayLimits extends WorkerTaskLimits {
  /** Results relayed whose master has not acknowledged them yet; past it, the oldest is forgotten. */
  maxAwaitingAck: number;
}

export interface WorkerRelayDeps {
  /** Who each node serves, and where frames are relayed to. */
  nodes: NodeDirectory & NodeSender;
  /** Which plans each master may run subtasks of elsewhere. */
  grants: Pick<PlanGrants, "check">;
  now: () => number;
  logger: Logger;
  limits?: Partial<WorkerRelayLimits>;
}

interface Refusal {
  code: ErrorCode;
  message: string;
}

export class WorkerRelay {
  private readonly tasks: InFlightTasks;
  /** `master/delivery_id` → the worker whose result it is: its push_ack waits for the master's ack. */
  private readonly awaitingAck: BoundedMap<string, string>;

  constructor(private readonly deps: WorkerRelayDeps) {
    const limits = { ...DEFAULT_WORKER_TASK_LIMITS, maxAwaitingAck: 10_000, ...deps.limits };
    this.tasks = new InFlightTasks(limits, deps.now);
    this.awaitingAck = new BoundedMap(limits.maxAwaitingAck);
  }

  receive(nodeId: string, frame: HostWorkerFrame): void {
    if (frame.type === "worker_task") this.task(nodeId, frame);
    else if (frame.type === "worker_status") this.status(nodeId, frame);
    else if (frame.type === "worker_result") this.result(nodeId, frame);
    else if (frame.type === "worker_result_ack") this.resultAck(nodeId, frame);
    else this.cancel(nodeId, frame);
  }

  /** A worker that drops fails its tasks at once: their masters need not wait for a deadline. */
  watch<C extends LiveConnection>(registry: NodeRegistry<C>): () => void {
    return registry.subscribe((event) => {
      if (event.type === "offline") this.workerOffline(event.node.nodeId);
    });
  }

  private task(master: string, frame: WorkerTaskFrame): void {
    const refusal = this.taskRefusal(master, frame);
    if (refusal) {
      this.refuseTask(master, frame, refusal);
      return;
    }
    const grant = this.deps.grants.check({
      master,
      planId: frame.plan_id,
      requestId: frame.request_id,
      userId: frame.user_id,
    });
    if (!grant.ok) {
      this.refuseTask(master, frame, { code: "UNAUTHORIZED", message: grant.message });
      return;
    }
    const { platform, chatId } = grant.origin;
    const worker = frame.node;
    this.tasks.add({
      taskId: frame.task_id,
      master,
      worker,
      userId: frame.user_id,
      expiresAt: this.deps.now() + frame.ttl_s * 1000,
    });
    if (!this.deps.nodes.send(worker, { ...frame, from_node: master, platform, chat_id: chatId })) {
      this.tasks.remove(frame.task_id);
      this.refuseTask(master, frame, { code: "NODE_OFFLINE", message: `node "${worker}" is not connected` });
      return;
    }
    this.deps.logger.info({ master, worker, taskId: frame.task_id }, "worker task relayed");
  }

  /** Why `master` may not run this task on its target; an unknown target reads as one not serving the user. */
  private taskRefusal(master: string, frame: WorkerTaskFrame): Refusal | undefined {
    const name = frame.node;
    if (!this.serves(master, frame.user_id))
      return { code: "UNAUTHORIZED", message: `node "${master}" does not serve this user` };
    if (name === master) return { code: "BAD_FRAME", message: `node "${name}" is this node: run it locally` };
    const target = this.deps.nodes.get(name);
    if (!target || !this.serves(name, frame.user_id))
      return { code: "UNAUTHORIZED", message: `no node "${name}" serves you` };
    if (target.status !== "online")
      return { code: "NODE_OFFLINE", message: `node "${name}" is not connected` };
    if (!target.capabilities.includes(WORKERS_CAPABILITY))
      return { code: "BAD_FRAME", message: `node "${name}" cannot run workers (upgrade it)` };
    const taken = this.tasks.get(frame.task_id);
    if (taken && taken.master !== master)
      return { code: "BAD_FRAME", message: `task id "${frame.task_id}" is already in use` };
    if (!this.tasks.hasRoom(master))
      return { code: "QUEUE_FULL", message: "too many worker tasks in flight; try again later" };
    return undefined;
  }

  private refuseTask(master: string, frame: WorkerTaskFrame, { code, message }: Refusal): void {
    this.deps.logger.warn({ master, worker: frame.node, taskId: frame.task_id, code }, "worker task refused");
    this.deps.nodes.send(master, {
      type: "worker_status",
      task_id: frame.task_id,
      ok: false,
      from_node: frame.node,
      error: { code, message },
    });
  }

  private status(worker: string, frame: WorkerStatusFrame): void {
    const task = this.tasks.get(frame.task_id);
    if (!task || task.worker !== worker) {
      this.deps.logger.warn(
        { worker, taskId: frame.task_id },
        "worker_status for a task not given to this node; dropped",
      );
      return;
    }
    if (!frame.ok) this.tasks.remove(frame.task_id);
    if (!this.deps.nodes.send(task.master, { ...frame, from_node: worker }))
      this.deps.logger.info(
        { master: task.master, taskId: frame.task_id },
        "master offline; worker_status dropped",
      );
  }

  private result(worker: string, frame: WorkerResultFrame): void {
    const master = frame.node;
    const refused = this.resultRefusal(worker, frame);
    if (refused) {
      this.deps.logger.warn({ worker, master, taskId: frame.task_id }, `worker_result refused: ${refused}`);
      this.deps.nodes.send(worker, {
        type: "push_ack",
        delivery_id: frame.delivery_id,
        ok: false,
        error: refused,
      });
      return;
    }
    if (!this.deps.nodes.send(master, { ...frame, from_node: worker })) {
      // Kept in the worker's outbox: it reaches the master once both are connected.
      this.deps.nodes.send(worker, {
        type: "error",
        code: "NODE_OFFLINE",
        delivery_id: frame.delivery_id,
        retry_after_s: MASTER_OFFLINE_RETRY_S,
        message: `node "${master}" is not connected; the result is sent again later`,
      });
      return;
    }
    this.tasks.remove(frame.task_id);
    this.awaitingAck.set(`${master}/${frame.delivery_id}`, worker);
  }

  /** Why this result may not reach its master (refused for good), if so. */
  private resultRefusal(worker: string, frame: WorkerResultFrame): string | undefined {
    const user = frame.user_id;
    if (!this.serves(worker, user)) return `node ${worker} does not serve user ${user}`;
    if (!this.serves(frame.node, user)) return `no node "${frame.node}" serves user ${user}`;
    // Known tasks must come back from where they went; one the router no longer knows (it
    // restarted) is checked against its master's own record of the task.
    const task = this.tasks.get(frame.task_id);
    if (task && (task.worker !== worker || task.master !== frame.node || task.userId !== user))
      return `task "${frame.task_id}" was not given to node ${worker}`;
    return undefined;
  }

  private resultAck(master: string, frame: WorkerResultAckFrame): void {
    const worker = this.awaitingAck.take(`${master}/${frame.delivery_id}`);
    if (!worker) {
      this.deps.logger.debug(
        { master, deliveryId: frame.delivery_id },
        "worker_result_ack for no relayed result; ignored",
      );
      return;
    }
    // Not connected: the worker sends the result again after reconnecting, and the master acks again.
    if (!this.deps.nodes.send(worker, { type: "push_ack", delivery_id: frame.delivery_id, ok: true }))
      this.deps.logger.info({ worker, deliveryId: frame.delivery_id }, "worker offline; its ack is dropped");
  }

  private cancel(master: string, frame: WorkerCancelFrame): void {
    const task = this.tasks.get(frame.task_id);
    const allowed =
      this.serves(master, frame.user_id) &&
      this.serves(frame.node, frame.user_id) &&
      (!task || (task.master === master && task.worker === frame.node));
    if (!allowed) {
      this.deps.logger.warn(
        { master, worker: frame.node, taskId: frame.task_id },
        "worker_cancel not allowed; dropped",
      );
      return;
    }
    this.tasks.remove(frame.task_id);
    if (!this.deps.nodes.send(frame.node, { ...frame, from_node: master }))
      this.deps.logger.debug(
        { worker: frame.node, taskId: frame.task_id },
        "worker offline; cancel not relayed",
      );
  }

  private workerOffline(worker: string): void {
    for (const task of this.tasks.takeRunningOn(worker))
      this.deps.nodes.send(task.master, {
        type: "worker_status",
        task_id: task.taskId,
        ok: false,
        from_node: worker,
        error: { code: "NODE_OFFLINE", message: `node "${worker}" went offline while running it` },
      });
  }

  private serves(nodeId: string, userId: string): boolean {
    const node = this.deps.nodes.get(nodeId);
    return node !== undefined && !node.revoked && servesUser(node, userId);
  }
}
