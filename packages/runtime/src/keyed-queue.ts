// One line of work per key: tasks for the same key run one at a time, in arrival order;
// different keys run in parallel. Used so a user's second message waits for the first,
// and a chat's sends go out in order.

export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once its line is empty, so idle keys hold no memory.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
