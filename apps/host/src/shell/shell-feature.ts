import type { HostConfig } from "../config/host-config.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import { createRunShellTool } from "./run-shell.ts";
import { shellCommand } from "./shell-command.ts";

// The machine's shell: the run_shell tool, and /shell for commands without the model (a long one
// becomes a background task).

export interface ShellFeatureDeps {
  config: Pick<HostConfig, "WORKING_DIR" | "LONG_TURN_S" | "BACKGROUND_TIMEOUT_S">;
  sandbox: ShellSandbox;
  tasks: TaskRunner;
}

export function createShellFeature({ config, sandbox, tasks }: ShellFeatureDeps): HostFeature {
  return {
    name: "shell",
    tools: [createRunShellTool(config.WORKING_DIR, sandbox)],
    commands: [
      shellCommand({
        workingDir: config.WORKING_DIR,
        tasks,
        longTurnMs: config.LONG_TURN_S * 1000,
        timeoutMs: config.BACKGROUND_TIMEOUT_S * 1000,
        sandbox,
      }),
    ],
    capabilities: () => ["shell"],
  };
}
