import { z } from "zod";
import { codeBlock } from "../contracts/code-block.ts";
import { defineTool, type Tool, type ToolContext, ToolError } from "../contracts/tool.ts";
import { resolveInside } from "../os/path-guard.ts";
import { type CommandResult, runCommand } from "../os/process-tree.ts";
import { blockedReason } from "../sandbox/shell-guard.ts";
import { noSandbox, type ShellSandbox, type WrapArgv } from "../sandbox/shell-sandbox.ts";

// run_shell: a command on this machine, in WORKING_DIR or below, with a hard time limit, in the
// sandbox the host chose (see sandbox/).

export const SHELL_TIMEOUT_DEFAULT_S = 30;
export const SHELL_TIMEOUT_CAP_S = 120;
export const MAX_OUTPUT_CHARS = 8000;

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

/**
 * Refuses a command that looks destructive (nothing is run) and resolves where it runs: `cwd`
 * inside the working directory. Throws a ToolError the user can read.
 */
export function checkShellCommand(workingDir: string, command: string, cwd = "."): string {
  const reason = blockedReason(command);
  if (reason) throw new ToolError(`refused: this command looks destructive (${reason}); nothing was run`);
  return resolveInside(workingDir, cwd);
}

/** How a finished command ended, then its output (each stream a fenced block). */
export function shellOutcomeText(result: CommandResult, timedOutStatus: string): string {
  const status = result.timedOut
    ? timedOutStatus
    : result.cancelled
      ? "cancelled"
      : `exit code ${result.exitCode ?? `signal ${result.signal}`}`;
  const parts = [status];
  if (result.stdout) parts.push(`stdout:\n${outputBlock(result.stdout)}`);
  if (result.stderr) parts.push(`stderr:\n${outputBlock(result.stderr)}`);
  return parts.join("\n");
}

/** Output as a preformatted block: columns line up wherever the platform can show monospace. */
const outputBlock = (output: string) => codeBlock(output.replace(/\n$/, ""));

/** A finished command as the user reads it: the command, how it ended, then its output. */
export const formatShellResult = (command: string, result: CommandResult, timedOutStatus: string) =>
  `$ ${command}\n${shellOutcomeText(result, timedOutStatus)}`;

export async function executeShell(
  workingDir: string,
  args: RunShellArgs,
  signal: AbortSignal,
  wrap?: WrapArgv,
): Promise<string> {
  const cwd = checkShellCommand(workingDir, args.command, args.cwd);
  const timeoutS = shellTimeoutSeconds(args.timeout);
  const result = await runCommand(args.command, {
    cwd,
    timeoutMs: timeoutS * 1000,
    signal,
    maxOutputChars: MAX_OUTPUT_CHARS,
    ...(wrap ? { wrap } : {}),
  });
  return formatShellResult(
    args.command,
    result,
    `killed after ${timeoutS}s (timeout)${args.timeout > SHELL_TIMEOUT_CAP_S ? `; the cap is ${SHELL_TIMEOUT_CAP_S}s, use run_background for longer work` : ""}`,
  );
}

/** `sandbox`: where the commands run (the host passes the one SANDBOX chose; unsandboxed by default). */
export function createRunShellTool(
  workingDir: string,
  sandbox: ShellSandbox = noSandbox("not configured"),
): Tool {
  return defineTool({
    name: "run_shell",
    description:
      "Run a shell command on this machine (git, ls, tail, ps, package managers…) and get stdout, stderr and the exit code. " +
      `Runs in the working directory unless cwd is given. Killed after the timeout (max ${SHELL_TIMEOUT_CAP_S}s); use run_background for longer jobs.`,
    schema: RunShellArgs,
    describe: (args) => `running: ${args.command.slice(0, 80)}`,
    execute: (args, ctx: ToolContext) =>
      executeShell(
        workingDir,
        args,
        ctx.signal,
        sandbox.forScope({
          userId: ctx.userId,
          chatId: ctx.chatId,
          platform: ctx.platform,
          scratchDir: ctx.scratchDir,
          isolated: ctx.isolated,
        }),
      ),
  });
}
