// Worker tasks the router relayed and that have not ended yet: which master sent each, which node
// runs it, for which user. Only in memory (a restarted router knows none; results still reach
// their master through the worker's outbox). Bounded overall and per master, so one node's flood
// cannot lock the others out; an entry past its task's ttl is dropped when room is needed.

export interface WorkerTask {
  taskId: string;
  master: string;
  worker: string;
  userId: string;
  /** When the master has given up on it anyway (its ttl). */
  expiresAt: number;
}

export interface WorkerTaskLimits {
  maxTasks: number;
  maxPerMaster: number;
}

export const DEFAULT_WORKER_TASK_LIMITS: WorkerTaskLimits = { maxTasks: 10_000, maxPerMaster: 1_000 };

export class InFlightTasks {
  private readonly tasks = new Map<string, WorkerTask>();
  private readonly perMaster = new Map<string, number>();

  constructor(
    private readonly limits: WorkerTaskLimits,
    private readonly now: () => number,
  ) {}

  get(taskId: string): WorkerTask | undefined {
    return this.tasks.get(taskId);
  }

  /** Whether `master` may add a task; when it may not, expired tasks are dropped first to make room. */
  hasRoom(master: string): boolean {
    if (this.fits(master)) return true;
    this.dropExpired();
    return this.fits(master);
  }

  /** Records a task (replacing one with the same id); check `hasRoom` first. */
  add(task: WorkerTask): void {
    this.remove(task.taskId);
    this.tasks.set(task.taskId, task);
    this.perMaster.set(task.master, (this.perMaster.get(task.master) ?? 0) + 1);
  }

  remove(taskId: string): WorkerTask | undefined {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    this.tasks.delete(taskId);
    const left = (this.perMaster.get(task.master) ?? 1) - 1;
    if (left > 0) this.perMaster.set(task.master, left);
    else this.perMaster.delete(task.master);
    return task;
  }

  /** Removes and returns every task running on `worker`. */
  takeRunningOn(worker: string): WorkerTask[] {
    const running = [...this.tasks.values()].filter((task) => task.worker === worker);
    for (const task of running) this.remove(task.taskId);
    return running;
  }

  private fits(master: string): boolean {
    return (
      this.tasks.size < this.limits.maxTasks && (this.perMaster.get(master) ?? 0) < this.limits.maxPerMaster
    );
  }

  private dropExpired(): void {
    const now = this.now();
    for (const task of [...this.tasks.values()]) if (task.expiresAt <= now) this.remove(task.taskId);
  }
}
