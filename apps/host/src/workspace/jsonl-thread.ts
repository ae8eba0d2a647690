import { parentPort, workerData } from "node:worker_threads";
import { JsonLinesAppender } from "./jsonl-appender.ts";

// The channel logs' thread (started by jsonl-thread-client.ts; jsonl-thread-writer.ts says why):
// it runs the same JsonLinesAppender the main thread ran, one per writer (a host's channel log),
// fed one batch per hand-over of the main thread (the lines it gathered over up to COALESCE_MS), so
// each file's path is looked at once per batch (a rotated or replaced file made again, a torn line
// closed first, a loosened mode made private again) and at most `maxOpen` files stay open per
// writer. It answers only when there is something to say: a batch's failures, a ping, a close.
// What it has written is in shared counters (the last batch's number, the failures told), which
// the main thread reads without asking.
// This file is an entry point of the bundle (scripts/bundle-cli.ts, jsonl-thread.js); from source
// Node runs it with its type stripping, so it and what it imports use only erasable TypeScript.

/** To the thread, in order. */
export type ToThread =
  /** `appends`: path, lines, path, lines… in the order they were appended. `seq` counts every writer's. */
  | { op: "batch"; writer: number; maxOpen: number; seq: number; appends: string[] }
  /** Answered `done` once everything before it is done. */
  | { op: "ping"; id: number }
  /** The writer's files closed; answered `done` with `id`. */
  | { op: "close"; writer: number; id: number };

/** What failed in a batch: the file's path and the error (never the lines). */
export interface ThreadFailure {
  path: string;
  message: string;
  code?: string;
}

export type FromThread =
  | { op: "failed"; writer: number; failures: ThreadFailure[] }
  | { op: "done"; id: number };

export interface ThreadData {
  /**
   * A BigInt64Array's memory (an Int32Array's would wrap after 2^31 batches, weeks of a busy
   * host): [0] the `seq` of the last batch written, [1] how many `failed` messages were posted
   * (counted before posting, stored before [0]: a reader that sees a batch written and every
   * report received knows nothing about it is still on its way).
   */
  written: SharedArrayBuffer;
}

function serve(port: NonNullable<typeof parentPort>, data: ThreadData): void {
  const appenders = new Map<number, JsonLinesAppender>();
  const written = new BigInt64Array(data.written);
  port.on("message", (message: ToThread) => {
    if (message.op === "batch") {
      let appender = appenders.get(message.writer);
      if (!appender) {
        appender = new JsonLinesAppender(message.maxOpen, "batches");
        appenders.set(message.writer, appender);
      }
      const failures = writeBatch(appender, message.appends);
      if (failures.length > 0) {
        Atomics.add(written, 1, 1n);
        port.postMessage({ op: "failed", writer: message.writer, failures } satisfies FromThread);
      }
      Atomics.store(written, 0, BigInt(message.seq));
      return;
    }
    if (message.op === "close") {
      appenders.get(message.writer)?.close();
      appenders.delete(message.writer);
    }
    port.postMessage({ op: "done", id: message.id } satisfies FromThread);
  });
}

/** Appends each file's lines; a file that fails does not stop the others. */
function writeBatch(appender: JsonLinesAppender, appends: string[]): ThreadFailure[] {
  const failures: ThreadFailure[] = [];
  for (let i = 0; i + 1 < appends.length; i += 2) {
    const path = appends[i] as string;
    try {
      appender.appendLines(path, appends[i + 1] as string);
    } catch (error) {
      const { message, code } = error as NodeJS.ErrnoException;
      failures.push({ path, message: String(message ?? error), ...(code ? { code } : {}) });
    }
  }
  appender.nextTurn();
  return failures;
}

const data = (workerData as { jsonlThread?: ThreadData } | null)?.jsonlThread;
if (parentPort && data) serve(parentPort, data);
