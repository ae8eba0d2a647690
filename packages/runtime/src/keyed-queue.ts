// One line of work per key: tasks for the same key run one at a time, in arrival order;
// different keys run in parallel. Used so a user's second message waits for the first.

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly depth = new Map<string, number>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    this.depth.set(key, (this.depth.get(key) ?? 0) + 1);
    void tail.then(() => {
      const left = (this.depth.get(key) ?? 1) - 1;
      if (left === 0) {
        this.depth.delete(key);
        if (this.tails.get(key) === tail) this.tails.delete(key);
      } else this.depth.set(key, left);
    });
    return result;
  }

  /** Tasks queued or running for `key`. */
  size(key: string): number {
    return this.depth.get(key) ?? 0;
  }
}
