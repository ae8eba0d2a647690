// The host's WORKERS slots, shared by its own plans and by work other nodes send it. A slot is
// IDLE or BUSY with one attempt; subtasks that find no free slot wait in their plan.

export interface WorkerSlot {
  name: string;
  state: "IDLE" | "BUSY";
  /** The attempt it runs, while BUSY. */
  taskId?: string;
}

export class WorkerPool {
  private readonly slots: Array<string | undefined>;
  private readonly waiters = new Set<() => void>();

  constructor(size: number) {
    this.slots = Array.from({ length: size }, () => undefined);
  }

  get size(): number {
    return this.slots.length;
  }

  /** A free slot's number (1-based) now taken by `taskId`, or undefined when all are busy. */
  acquire(taskId: string): number | undefined {
    const index = this.slots.indexOf(undefined);
    if (index < 0) return undefined;
    this.slots[index] = taskId;
    return index + 1;
  }

  release(slot: number): void {
    this.slots[slot - 1] = undefined;
    for (const waiter of [...this.waiters]) waiter();
  }

  free(): number {
    return this.slots.filter((slot) => slot === undefined).length;
  }

  /** Called after every release: whoever waits for a slot tries again. */
  onRelease(listener: () => void): () => void {
    this.waiters.add(listener);
    return () => this.waiters.delete(listener);
  }

  states(): WorkerSlot[] {
    return this.slots.map((taskId, index) =>
      taskId
        ? { name: workerName(index + 1), state: "BUSY", taskId }
        : { name: workerName(index + 1), state: "IDLE" },
    );
  }
}

export const workerName = (slot: number) => `Worker-${slot}`;
