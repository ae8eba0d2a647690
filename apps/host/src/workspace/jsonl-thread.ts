import { parentPort, workerData } from "node:worker_threads";
import { JsonLinesAppender } from "./jsonl-appender.ts";

// The channel log's thread (started by jsonl-thread-writer.ts, which says why): it runs the same
// JsonLinesAppender the main thread ran, one batch per turn of the main thread, so each file's
// path is looked at once per batch (a rotated or replaced file made again, a torn line closed
// first, a loosened mode made private again) and at most `maxOpen` files stay open. It answers
// only when there is something to say: a batch's failures, a `flushed` asked for, its close. What
// it has written is in a shared counter (the last batch's number), which the main thread reads
// without asking.
// This file is an entry point of the bundle (scripts/bundle-cli.ts); from source it runs with tsx.

/** To the thread: lines to append, a question, or the end. */
export type ToThread =
  /** `appends`: path, lines, path, lines… in the order they were appended. */
  | { op: "batch"; seq: number; appends: string[] }
  /** Answered (`done`) once every batch before it is written. */
  | { op: "ping"; id: number }
  /** Closes every file and ends the thread (answered `closed` first). */
  | { op: "close" };

/** What failed in a batch: the file's path and the error (never the lines). */
export interface ThreadFailure {
  path: string;
  message: string;
  code?: string;
}

export type FromThread =
  | { op: "failed"; failures: ThreadFailure[] }
  | { op: "done"; id: number }
  | { op: "closed" };

export interface ThreadData {
  maxOpen: number;
  /** An Int32Array's memory: [0] is the number of the last batch written. */
  written: SharedArrayBuffer;
}

function serve(port: NonNullable<typeof parentPort>, data: ThreadData): void {
  const appender = new JsonLinesAppender(data.maxOpen, "batches");
  const written = new Int32Array(data.written);
  port.on("message", (message: ToThread) => {
    if (message.op === "batch") {
      const failures: ThreadFailure[] = [];
      const { appends } = message;
      for (let i = 0; i + 1 < appends.length; i += 2) {
        const path = appends[i] as string;
        try {
          appender.appendLines(path, appends[i + 1] as string);
        } catch (error) {
          const { message: text, code } = error as NodeJS.ErrnoException;
          failures.push({ path, message: String(text ?? error), ...(code ? { code } : {}) });
        }
      }
      appender.nextTurn();
      Atomics.store(written, 0, message.seq);
      if (failures.length > 0) port.postMessage({ op: "failed", failures } satisfies FromThread);
    } else if (message.op === "ping") {
      port.postMessage({ op: "done", id: message.id } satisfies FromThread);
    } else {
      appender.close();
      port.postMessage({ op: "closed" } satisfies FromThread);
      port.close(); // nothing else keeps the thread: it ends
    }
  });
}

if (parentPort && (workerData as { jsonlThread?: ThreadData } | undefined)?.jsonlThread)
  serve(parentPort, (workerData as { jsonlThread: ThreadData }).jsonlThread);
