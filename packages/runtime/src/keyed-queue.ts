// One line of work per key: tasks for the same key run one at a time, in arrival order;
// different keys run in parallel. Used so a user's second message waits for the first,
// and a chat's sends go out in order. Every forwarded message passes through three of these, so a
// run makes as few promises as it can: the task's, and one tail that also forgets an idle key.

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Keys with a task queued or running (an idle key holds no memory). */
  get size(): number {
    return this.tails.size;
  }

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    // Forget the key once its line is empty: the tail settles after the task, whichever way it ended.
    const tail: Promise<void> = result.then(
      () => this.forget(key, tail),
      () => this.forget(key, tail),
    );
    this.tails.set(key, tail);
    return result;
  }

  private forget(key: string, tail: Promise<void>): void {
    if (this.tails.get(key) === tail) this.tails.delete(key);
  }
}
