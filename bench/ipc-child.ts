import { type ChildProcess, fork } from "node:child_process";

// A bench helper process (TypeScript under tsx) driven over Node's IPC channel. Messages are
// objects discriminated on `type`; `next` waits for one kind with a deadline. The children exit
// when the channel closes, so they cannot outlive the bench even if it crashes.

interface Waiter<Out> {
  type: string;
  resolve: (message: Out) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class IpcChild<In extends { type: string }, Out extends { type: string }> {
  private readonly waiters = new Set<Waiter<Out>>();
  readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly name: string,
  ) {
    child.on("message", (message: Out) => {
      for (const waiter of this.waiters) {
        if (waiter.type !== message.type) continue;
        this.settle(waiter);
        waiter.resolve(message);
      }
    });
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        for (const waiter of this.waiters) {
          this.settle(waiter);
          waiter.reject(
            new Error(`${name} exited (code ${code}, signal ${signal}) while waiting for ${waiter.type}`),
          );
        }
        resolve();
      });
    });
  }

  /** Starts `file` with the tsx loader; `nodeArgs` go to node itself (e.g. --expose-gc). */
  static start<In extends { type: string }, Out extends { type: string }>(
    file: URL,
    options: { name: string; nodeArgs?: string[]; env?: Record<string, string> },
  ): IpcChild<In, Out> {
    const child = fork(file, [], {
      execArgv: ["--import", "tsx", ...(options.nodeArgs ?? [])],
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    return new IpcChild<In, Out>(child, options.name);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  send(message: In): void {
    this.child.send(message);
  }

  next<K extends Out["type"]>(type: K, timeoutMs: number): Promise<Extract<Out, { type: K }>> {
    if (!this.running) return Promise.reject(new Error(`${this.name} is not running`));
    return new Promise((resolve, reject) => {
      const waiter: Waiter<Out> = {
        type,
        resolve: resolve as (message: Out) => void,
        reject,
        timer: setTimeout(() => {
          this.settle(waiter);
          reject(new Error(`${this.name}: no '${type}' within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Sends `message` and waits for the answer of kind `type`. */
  request<K extends Out["type"]>(
    message: In,
    type: K,
    timeoutMs: number,
  ): Promise<Extract<Out, { type: K }>> {
    const answer = this.next(type, timeoutMs);
    this.send(message);
    return answer;
  }

  /** Signals the child and waits until it has exited. */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited;
  }

  private settle(waiter: Waiter<Out>): void {
    clearTimeout(waiter.timer);
    this.waiters.delete(waiter);
  }
}
