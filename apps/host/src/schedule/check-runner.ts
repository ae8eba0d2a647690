import type { CodingTurns } from "../contracts/coding-turns.ts";
import { runCommand } from "../os/process-tree.ts";
import { blockedReason } from "../sandbox/shell-guard.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import type { CheckOutcome, CheckRunner } from "./scheduler.ts";

// What a check job runs at its time: a shell command in the working directory (the same guard
// as run_shell), or a prompt to the user's coding session. Passed = exit code 0 / no agent error.

const MAX_OUTPUT = 4000;

export function createCheckRunner(deps: {
  workingDir: string;
  timeoutMs: number;
  coding: CodingTurns;
  /** Where check commands run (default: unsandboxed). */
  sandbox?: ShellSandbox;
}): CheckRunner {
  return async (job, signal): Promise<CheckOutcome> => {
    if (job.check_command) {
      const reason = blockedReason(job.check_command);
      if (reason) return { ok: false, output: `refused: this command looks destructive (${reason})` };
      const result = await runCommand(job.check_command, {
        cwd: deps.workingDir,
        timeoutMs: deps.timeoutMs,
        signal,
        maxOutputChars: MAX_OUTPUT,
        ...(deps.sandbox
          ? {
              wrap: deps.sandbox.forScope({
                userId: job.user_id,
                chatId: job.chat_id,
                platform: job.platform,
              }),
            }
          : {}),
      });
      const output = [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join("\n");
      if (result.timedOut) return { ok: false, output: `timed out\n${output}` };
      return { ok: result.exitCode === 0, output };
    }
    const session = deps.coding.pick(job.user_id);
    if (!session) return { ok: false, output: "no coding session to ask (start one with /new)" };
    const owner = { userId: job.user_id, chatId: job.chat_id, platform: job.platform };
    // Run to its end (a check is already in the background) and judged by how the turn ended.
    const outcome = await deps.coding.run(session, job.check_prompt ?? job.text, {
      ...owner,
      signal,
      progress: () => {},
    });
    return { ok: outcome.ok, output: outcome.text };
  };
}
