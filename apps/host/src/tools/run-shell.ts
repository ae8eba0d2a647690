import { z } from "zod";
import { resolveInside } from "./path-guard.ts";
import { runCommand } from "./process-tree.ts";
import { blockedReason } from "./shell-guard.ts";
import { defineTool, type Tool, type ToolContext, ToolError } from "./tool.ts";

// run_shell (M2.2): a command on this machine, in WORKING_DIR or below, with a hard time limit.

export const SHELL_TIMEOUT_DEFAULT_S = 30;
export const SHELL_TIMEOUT_CAP_S = 120;
const MAX_OUTPUT_CHARS = 8000;

export const RunShellArgs = z.object({
  command: z.string().min(1, "command must not be empty").max(10_000),
  cwd: z.string().optional().describe("directory to run in, relative to the working directory (default: it)"),
  timeout: z
    .number()
    .positive()
    .default(SHELL_TIMEOUT_DEFAULT_S)
    .describe(
      `seconds before the command is killed (default ${SHELL_TIMEOUT_DEFAULT_S}, at most ${SHELL_TIMEOUT_CAP_S})`,
    ),
});
export type RunShellArgs = z.output<typeof RunShellArgs>;

/** The timeout actually applied: what was asked, capped. */
export const shellTimeoutSeconds = (requested: number) => Math.min(requested, SHELL_TIMEOUT_CAP_S);

export async function executeShell(
  workingDir: string,
  args: RunShellArgs,
  signal: AbortSignal,
): Promise<string> {
  const reason = blockedReason(args.command);
  if (reason) throw new ToolError(`refused: this command looks destructive (${reason}); nothing was run`);
  const cwd = resolveInside(workingDir, args.cwd ?? ".");
  const timeoutS = shellTimeoutSeconds(args.timeout);
  const result = await runCommand(args.command, {
    cwd,
    timeoutMs: timeoutS * 1000,
    signal,
    maxOutputChars: MAX_OUTPUT_CHARS,
  });
  const status = result.timedOut
    ? `killed after ${timeoutS}s (timeout)${args.timeout > SHELL_TIMEOUT_CAP_S ? `; the cap is ${SHELL_TIMEOUT_CAP_S}s, use run_background for longer work` : ""}`
    : result.cancelled
      ? "cancelled"
      : `exit code ${result.exitCode ?? `signal ${result.signal}`}`;
  const parts = [`$ ${args.command}`, status];
  if (result.stdout) parts.push(`stdout:\n${result.stdout}`);
  if (result.stderr) parts.push(`stderr:\n${result.stderr}`);
  return parts.join("\n");
}

export function createRunShellTool(workingDir: string): Tool {
  return defineTool({
    name: "run_shell",
    description:
      "Run a shell command on this machine (git, ls, tail, ps, package managers…) and get stdout, stderr and the exit code. " +
      `Runs in the working directory unless cwd is given. Killed after the timeout (max ${SHELL_TIMEOUT_CAP_S}s); use run_background for longer jobs.`,
    schema: RunShellArgs,
    describe: (args) => `running: ${args.command.slice(0, 80)}`,
    execute: (args, ctx: ToolContext) => executeShell(workingDir, args, ctx.signal),
  });
}
