import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Logger } from "@phonework/runtime";

// A child process speaking newline-delimited JSON-RPC on stdio, the way `codex app-server`
// does (no "jsonrpc" member). Requests are matched by id; every pending request fails at once
// when the process exits; server-to-client requests are always answered.

export type JsonRpcMessage = {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

export class JsonRpcError extends Error {
  override readonly name = "JsonRpcError";
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

export interface JsonRpcProcessOptions {
  bin: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logger: Logger;
  onNotification: (method: string, params: unknown) => void;
  /** Server-to-client requests; the returned value is sent back as the result. */
  onRequest: (method: string, params: unknown) => Promise<unknown>;
  onExit: (reason: string) => void;
}

export class JsonRpcProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited: string | undefined;

  constructor(private readonly options: JsonRpcProcessOptions) {
    this.child = spawn(options.bin, options.args, {
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on("line", (line) =>
      this.receive(line),
    );
    let stderr = "";
    this.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    this.child.stdin?.on("error", () => {}); // writes after exit are reported through onExit
    this.child.once("error", (error) => this.exit(`could not start ${options.bin}: ${error.message}`));
    this.child.once("exit", (code, signal) =>
      this.exit(
        `${options.bin} exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim().slice(-500)}` : ""}`,
      ),
    );
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    if (this.exited) return Promise.reject(new JsonRpcError(this.exited));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.write({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Ends the process group: SIGTERM, then SIGKILL after the grace period. */
  kill(graceMs: number): void {
    const pid = this.child.pid;
    if (pid === undefined || !this.alive) return;
    const send = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {}
    };
    send("SIGTERM");
    setTimeout(() => send("SIGKILL"), graceMs).unref();
  }

  private write(message: JsonRpcMessage): void {
    if (this.exited) return;
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(line) as JsonRpcMessage;
    } catch {
      this.options.logger.debug({ line: line.slice(0, 200) }, "non-JSON line from app-server");
      return;
    }
    if (message.method !== undefined && message.id !== undefined) {
      const id = message.id;
      this.options.onRequest(message.method, message.params).then(
        (result) => this.write({ id, result }),
        (error: unknown) =>
          this.write({ id, error: { code: -32603, message: String((error as Error)?.message ?? error) } }),
      );
      return;
    }
    if (message.method !== undefined) {
      this.options.onNotification(message.method, message.params);
      return;
    }
    const entry = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
    if (!entry) return;
    this.pending.delete(message.id as number);
    if (message.error) entry.reject(new JsonRpcError(message.error.message, message.error.code));
    else entry.resolve(message.result);
  }

  private exit(reason: string): void {
    if (this.exited) return;
    this.exited = reason;
    for (const entry of this.pending.values()) entry.reject(new JsonRpcError(reason));
    this.pending.clear();
    this.options.onExit(reason);
  }
}
