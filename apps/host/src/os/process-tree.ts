import { spawn } from "node:child_process";
import { BoundedOutput } from "./bounded-output.ts";

// Runs a shell command in its own process group so that on timeout or cancel the whole
// tree (the shell and everything it started) is killed: SIGTERM first, SIGKILL after a grace period.
// Sandboxed, the group's leader is bwrap: when it dies, its pid namespace and everything in it go too.

export interface CommandOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxOutputChars: number;
  /** Called with output as it arrives (background tasks show "output so far"). */
  onOutput?: (chunk: string) => void;
  killGraceMs?: number;
  /**
   * Turns `["/bin/sh", "-c", command]` into the argv actually started (a sandbox puts bwrap in
   * front). The command stays one argument: it is never quoted into another command line.
   */
  wrap?: (argv: readonly string[], cwd: string) => string[];
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/**
 * After the shell exits, a job it left in the background may hold its pipes open, so they do not
 * close. The command is then over once the pipes have been quiet this long (what the shell wrote
 * has been read)…
 */
const PIPES_QUIET_MS = 200;
/** …or this long after the exit, for a job that goes on writing. */
const PIPES_MAX_WAIT_MS = 2000;

export function killTree(pid: number, graceMs: number): void {
  const send = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  send("SIGTERM");
  setTimeout(() => send("SIGKILL"), graceMs).unref();
}

export function runCommand(command: string, options: CommandOptions): Promise<CommandResult> {
  const started = Date.now();
  const stdout = new BoundedOutput(options.maxOutputChars);
  const stderr = new BoundedOutput(options.maxOutputChars);
  const graceMs = options.killGraceMs ?? 2000;
  const shell = ["/bin/sh", "-c", command];
  const [file = "/bin/sh", ...args] = options.wrap ? options.wrap(shell, options.cwd) : shell;
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      detached: true, // own process group: kill(-pid) reaches every descendant
      stdio: ["ignore", "pipe", "pipe"],
    });
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let lastOutputAt = 0;
    const stop = () => child.pid !== undefined && killTree(child.pid, graceMs);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      lastOutputAt = Date.now();
      stdout.append(chunk);
      options.onOutput?.(chunk);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      lastOutputAt = Date.now();
      stderr.append(chunk);
      options.onOutput?.(chunk);
    });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // A timed-out or cancelled command's leftovers are killed too.
      if ((timedOut || cancelled) && child.pid !== undefined) killTree(child.pid, graceMs);
      resolve({
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        exitCode,
        signal,
        timedOut,
        cancelled,
        durationMs: Date.now() - started,
      });
    };
    child.once("error", (error) => {
      stderr.append(String(error.message));
      finish(null, null);
    });
    child.once("close", finish);
    // A descendant left running in the background can hold the pipes open after the shell
    // exits: wait for the pipes to go quiet (bounded), not for a fixed time, which a busy machine
    // could spend before reading what the shell wrote last.
    child.once("exit", (code, signal) => {
      const exitedAt = Date.now();
      const check = () => {
        // After the poll phase: output already waiting in the pipes has been read by now, even
        // if the event loop was held up past the timer.
        setImmediate(() => {
          if (settled) return;
          const now = Date.now();
          const quietFor = now - Math.max(lastOutputAt, exitedAt);
          const waited = now - exitedAt;
          if (quietFor < PIPES_QUIET_MS && waited < PIPES_MAX_WAIT_MS) {
            setTimeout(check, Math.min(PIPES_QUIET_MS - quietFor, PIPES_MAX_WAIT_MS - waited)).unref();
            return;
          }
          child.stdout.destroy();
          child.stderr.destroy();
          finish(code, signal);
        });
      };
      setTimeout(check, PIPES_QUIET_MS).unref();
    });
  });
}
