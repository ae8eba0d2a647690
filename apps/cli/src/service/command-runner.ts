import { spawn } from "node:child_process";

// How the installers run systemctl and launchctl: a function, so tests can put a fake executable on
// PATH and see the real argv cross the process boundary.

export interface CommandResult {
  /** The exit code; 127 when the command is not there, 124 when it ran past the time limit. */
  code: number;
  stdout: string;
  stderr: string;
}

export type CommandRunner = (command: string, args: readonly string[]) => Promise<CommandResult>;

/** Runs commands as child processes with `env` (its PATH finds them). Never rejects. */
export function processRunner(env: NodeJS.ProcessEnv, timeoutMs = 60_000): CommandRunner {
  return (command, args) =>
    new Promise((resolve) => {
      const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.once("error", (error: NodeJS.ErrnoException) => {
        const code = error.code === "ENOENT" ? 127 : 1;
        resolve({
          code,
          stdout,
          stderr: `${command}: ${error.code === "ENOENT" ? "not found" : error.message}`,
        });
      });
      child.once("close", (code, signal) => {
        if (code !== null) resolve({ code, stdout, stderr });
        else
          resolve({
            code: signal === "SIGTERM" ? 124 : 128,
            stdout,
            stderr: stderr || `${command}: ${signal}`,
          });
      });
    });
}

/** The command's complaint in one line, for a message. */
export function firstLine(result: CommandResult): string {
  const text = (result.stderr.trim() || result.stdout.trim()).split("\n")[0] ?? "";
  return text || `exit code ${result.code}`;
}
