import type { WorkerCancelFrame, WorkerTaskFrame } from "@phonework/protocol";

// The master's side of attempts that run on another node: the task is sent through the router,
// and an attempt that stays silent past its TTL plus a grace (its node vanished, or the router
// restarted and forgot it) is given up on and cancelled there.

export class RemoteAttempts {
  private readonly deadlines = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly send: (frame: WorkerTaskFrame | WorkerCancelFrame) => boolean,
    private readonly graceMs: number,
  ) {}

  /** Sends the task; false when the link to the router is down. `onSilent` runs at the deadline. */
  dispatch(frame: WorkerTaskFrame, onSilent: () => void): boolean {
    if (!this.send(frame)) return false;
    const timer = setTimeout(
      () => {
        this.deadlines.delete(frame.task_id);
        onSilent();
      },
      frame.ttl_s * 1000 + this.graceMs,
    );
    this.deadlines.set(frame.task_id, timer.unref());
    return true;
  }

  /** The attempt ended: its deadline no longer matters. */
  ended(taskId: string): void {
    clearTimeout(this.deadlines.get(taskId));
    this.deadlines.delete(taskId);
  }

  cancel(taskId: string, userId: string, node: string, reason: string): void {
    this.ended(taskId);
    this.send({ type: "worker_cancel", task_id: taskId, user_id: userId, node, reason });
  }

  close(): void {
    for (const timer of this.deadlines.values()) clearTimeout(timer);
    this.deadlines.clear();
  }
}
