import { type ProgressKind, WireError } from "@phonework/protocol";

// The table of requests awaiting an answer on one node connection. Every entry is settled
// exactly once: by its answer, by its timeout, by abort, or all at once when the socket closes.

/** A status line, or (with a kind other than "status") one of the turn's details. */
export type ProgressListener = (text: string, kind?: ProgressKind) => void;

export interface PendingOptions {
  timeoutMs: number;
  onProgress?: ProgressListener;
  onTimeout?: () => void;
  signal?: AbortSignal;
}

interface Entry<T> {
  resolve: (answer: T) => void;
  reject: (error: WireError) => void;
  onProgress?: ProgressListener;
  timer: NodeJS.Timeout;
  cleanup: () => void;
}

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
      const onAbort = () => this.reject(id, new WireError("CANCELLED", "request cancelled", this.nodeId));
      const timer = setTimeout(() => {
        options.onTimeout?.();
        this.reject(
          id,
          new WireError("TIMEOUT", `no answer within ${Math.round(options.timeoutMs / 1000)}s`, this.nodeId),
        );
      }, options.timeoutMs);
      const entry: Entry<T> = {
        resolve,
        reject,
        timer,
        cleanup: () => options.signal?.removeEventListener("abort", onAbort),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      };
      this.entries ??= new Map();
      this.entries.set(id, entry);
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
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
    entry.cleanup();
    return entry;
  }
}
