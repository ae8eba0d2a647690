import { type ChildProcess, spawn } from "node:child_process";
import type { Cleanup } from "./cleanup.ts";

// A program the bench starts as it would be started by hand (no IPC, no tsx): its output is
// watched for the line that says it is ready, and the whole process group is stopped at cleanup.

const KEPT_OUTPUT = 64 * 1024;
const STOP_GRACE_MS = 5_000;

export interface ProgramProcess {
  readonly pid: number;
  readonly running: boolean;
  /** Resolves with the output seen so far once `pattern` matches it; rejects at exit or after `timeoutMs`. */
  waitForOutput(stream: "stdout" | "stderr", pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Ends stdin (a pipe): end of input, or Ctrl-D under `script`. */
  endInput(): void;
  /** Resolves with the exit code once the process has exited, whether or not it was asked to. */
  readonly exited: Promise<number | null>;
  /** SIGTERM to the process group, SIGKILL if it is still there `STOP_GRACE_MS` later. */
  stop(): Promise<void>;
}

export interface StartOptions {
  env: Record<string, string>;
  cwd: string;
  /** Keep stdin a pipe the bench holds open (else /dev/null). */
  stdinPipe?: boolean;
}

export function startProgram(
  command: string,
  args: readonly string[],
  options: StartOptions,
  cleanup: Cleanup,
): ProgramProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdinPipe ? "pipe" : "ignore", "pipe", "pipe"],
    // Its own process group, so `script` and whatever it started are stopped together.
    detached: true,
  });
  const output = { stdout: "", stderr: "" };
  const listeners = new Set<() => void>();
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream]?.setEncoding("utf8");
    child[stream]?.on("data", (chunk: string) => {
      output[stream] = (output[stream] + chunk).slice(-KEPT_OUTPUT);
      for (const listener of listeners) listener();
    });
  }
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      for (const listener of listeners) listener();
      resolve(code);
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!running()) return;
    signalGroup(child, "SIGTERM");
    const timer = setTimeout(() => signalGroup(child, "SIGKILL"), STOP_GRACE_MS);
    await exited.catch(() => undefined);
    clearTimeout(timer);
  };
  cleanup.add(stop);

  const name = [command, ...args.slice(0, 1)].join(" ");
  return {
    get pid() {
      if (child.pid === undefined) throw new Error(`${name} did not start`);
      return child.pid;
    },
    get running() {
      return running();
    },
    waitForOutput(stream, pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output[stream])) finish(() => resolve(output[stream]));
          else if (!running())
            finish(() => reject(new Error(`${name} exited before ${pattern}: ${tail(output)}`)));
        };
        const timer = setTimeout(
          () =>
            finish(() => reject(new Error(`${name}: no ${pattern} within ${timeoutMs} ms: ${tail(output)}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    endInput: () => child.stdin?.end(),
    exited,
    stop,
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function tail(output: { stdout: string; stderr: string }): string {
  const text = `${output.stdout}\n${output.stderr}`.trim();
  return text.length > 600 ? `…${text.slice(-600)}` : text || "(no output)";
}
