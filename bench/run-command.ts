import { spawn } from "node:child_process";
import type { Cleanup } from "./cleanup.ts";

// A command run to completion (packing, installing, `--version`), without blocking the event
// loop, so the part's deadline and Ctrl-C still work while it runs.

export interface CommandResult {
  stdout: string;
  /** Wall time from spawn to exit. */
  ms: number;
}

export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
  cleanup: Cleanup,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    cleanup.add(kill);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    const what = `${command} ${args.join(" ")}`;
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`${what} did not finish within ${options.timeoutMs / 1000} s`));
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      if (code === 0) resolve({ stdout, ms });
      else reject(new Error(`${what} failed (code ${code}, signal ${signal}): ${stderr.trim()}`));
    });
  });
}
