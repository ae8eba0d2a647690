import { KeyedQueue } from "@phonework/runtime";

// Each user's messages on this host run one at a time, in the order they arrived, so their
// answers leave in that order too (the outbox keeps it on the way to the router). One exception
// keeps coding sessions as they were: once a message waits in an ordered queue of its own (a
// coding session's), the user's next message may follow it into that same queue at once, since
// that queue keeps their order anyway; a message for anywhere else waits for the answer.

export interface LineItem<T> {
  /** The ordered queue this message would join if it started now (its coding session), if any. */
  joins(): string | undefined;
  /** Runs the message; it calls `queuedIn` once it waits in an ordered queue of its own. */
  run(queuedIn: (queue: string) => void): Promise<T>;
}

/** The message that started last for a user: where it waits, and when it is done. */
interface Started {
  queue: string | undefined;
  finished: Promise<void>;
}

export class MessageLine {
  /** Starts: one at a time per user, each after the previous one finished or found its queue. */
  private readonly starts = new KeyedQueue();
  private readonly last = new Map<string, Started>();

  run<T>(key: string, item: LineItem<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      void this.starts.run(key, async () => {
        const previous = this.last.get(key);
        if (previous && (previous.queue === undefined || previous.queue !== item.joins()))
          await previous.finished;
        let foundQueue: () => void = () => {};
        const queued = new Promise<void>((found) => {
          foundQueue = found;
        });
        const started: Started = { queue: undefined, finished: Promise.resolve() };
        started.finished = Promise.resolve()
          .then(() =>
            item.run((queue) => {
              started.queue = queue;
              foundQueue();
            }),
          )
          .then(resolve, reject);
        this.last.set(key, started);
        // Forget the user once their line is empty, so idle users hold no memory.
        void started.finished.then(() => {
          if (this.last.get(key) === started) this.last.delete(key);
        });
        await Promise.race([queued, started.finished]);
      });
    });
  }
}
