import { type ProgressKind, WireError } from "@phonework/protocol";

// The table of requests awaiting an answer on one node connection. Every entry is settled
// exactly once: by its answer, by its timeout, by abort, or all at once when the socket closes.
// Every forwarded message waits here, so a wait makes no named closure (the bundle's keepNames
// wraps each one in a defineProperty when it is made): the abort listener is made only where a
// signal is given, and the timeout calls `onTimeout` with the id, so a caller can hand the same
// function to every wait.

/** A status line, or (with a kind other than "status") one of the turn's details. */
export type ProgressListener = (text: string, kind?: ProgressKind) => void;

export interface PendingOptions {
  timeoutMs: number;
  onProgress?: ProgressListener;
  /** Told the id whose wait timed out (one function can serve every request). */
  onTimeout?: (id: string) => void;
  signal?: AbortSignal;
}

interface Entry<T> {
  resolve: (answer: T) => void;
  reject: (error: WireError) => void;
  onProgress: ProgressListener | undefined;
  timer: NodeJS.Timeout;
  /** The caller's signal and the listener this table put on it, removed when the entry settles. */
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

const ONCE = { once: true };

/** `T`: what an answer is (the connection's table holds NodeAnswers). */
export class PendingRequests<T> {
  /**
   * Made at the first request: every connected node has a table, and an empty Map is ~180 bytes
   * that most of ten thousand idle hosts would keep for nothing.
   */
  private entries: Map<string, Entry<T>> | undefined;

  constructor(private readonly nodeId: string) {}

  get size(): number {
    return this.entries?.size ?? 0;
  }

  has(id: string): boolean {
    return this.entries?.has(id) ?? false;
  }

  /** Registers `id` and returns a promise for its answer. The caller sends the request afterwards. */
  wait(id: string, options: PendingOptions): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Entry<T> = {
        resolve,
        reject,
        onProgress: options.onProgress,
        timer: setTimeout(() => this.timedOut(id, options), options.timeoutMs),
        signal: undefined,
        onAbort: undefined,
      };
      this.entries ??= new Map();
      this.entries.set(id, entry);
      const { signal } = options;
      if (!signal) return;
      if (signal.aborted) return void this.cancelled(id);
      entry.signal = signal;
      entry.onAbort = () => this.cancelled(id);
      signal.addEventListener("abort", entry.onAbort, ONCE);
    });
  }

  resolve(id: string, answer: T): boolean {
    const entry = this.take(id);
    entry?.resolve(answer);
    return entry !== undefined;
  }

  reject(id: string, error: WireError): boolean {
    const entry = this.take(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  progress(id: string, text: string, kind?: ProgressKind): boolean {
    const entry = this.entries?.get(id);
    entry?.onProgress?.(text, kind);
    return entry !== undefined;
  }

  /** Fails every pending request at once, e.g. when the socket closed. */
  rejectAll(error: () => WireError): void {
    for (const id of [...(this.entries?.keys() ?? [])]) this.reject(id, error());
  }

  private take(id: string): Entry<T> | undefined {
    const entry = this.entries?.get(id);
    if (!entry) return undefined;
    this.entries?.delete(id);
    clearTimeout(entry.timer);
    if (entry.onAbort) entry.signal?.removeEventListener("abort", entry.onAbort);
    return entry;
  }

  private timedOut(id: string, options: PendingOptions): void {
    options.onTimeout?.(id);
    this.reject(
      id,
      new WireError("TIMEOUT", `no answer within ${Math.round(options.timeoutMs / 1000)}s`, this.nodeId),
    );
  }

  private cancelled(id: string): void {
    this.reject(id, new WireError("CANCELLED", "request cancelled", this.nodeId));
  }
}
