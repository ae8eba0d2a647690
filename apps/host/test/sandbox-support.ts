import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestLogger } from "@phonework/testkit";
import { HostConfigSchema } from "../src/config/host-config.ts";
import { type CommandOptions, type CommandResult, runCommand } from "../src/os/process-tree.ts";
import { openSandbox } from "../src/sandbox/open-sandbox.ts";
import type { CommandScope, ShellSandbox } from "../src/sandbox/shell-sandbox.ts";
import { openStateDatabase } from "../src/state-database.ts";
import { ChannelAccess } from "../src/workspace/channel-access.ts";
import { channelOf, WorkspaceLayout } from "../src/workspace/workspace-layout.ts";
import { onCleanup } from "./support.ts";

// A machine to attack from inside the sandbox: a project folder (WORKING_DIR), a DATA_DIR with a
// key, a database and a workspace holding two chats (Alice's and Bob's), a home directory (HOME is
// faked) with SSH and AWS credentials, and a directory outside everything for commands to destroy.

export const ALICE: CommandScope = { userId: "telegram:1", chatId: "telegram:1", platform: "telegram" };
export const BOB: CommandScope = { userId: "telegram:2", chatId: "telegram:2", platform: "telegram" };
export const VISIBLE_TMP = "/var/tmp";

export interface SandboxRig {
  workingDir: string;
  dataDir: string;
  home: string;
  outside: string;
  workspace: WorkspaceLayout;
  access: ChannelAccess;
  /** The key file in DATA_DIR and the SSH key in HOME. */
  secrets: { dataKey: string; sshKey: string; awsCredentials: string };
  logs: { alice: string; bob: string };
  logLines: ReturnType<typeof createTestLogger>["lines"];
  sandbox: ShellSandbox;
  /** Runs `command` in the sandbox for `scope` (Alice by default), in WORKING_DIR. */
  run(command: string, scope?: CommandScope, options?: Partial<CommandOptions>): Promise<CommandResult>;
}

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

export interface RigPaths {
  workingDir: string;
  dataDir: string;
  home: string;
  outside: string;
}

/**
 * The rig lives in /var/tmp, not /tmp: a sandboxed command gets a /tmp of its own, so a target
 * under /tmp would be out of its reach for the wrong reason.
 */
export function sandboxRig(
  config: Record<string, unknown> | ((paths: RigPaths) => Record<string, unknown>) = {},
  /** More of the environment commands run in (the host's). */
  env: NodeJS.ProcessEnv = {},
): SandboxRig {
  const root = mkdtempSync(join(VISIBLE_TMP, "phonework-sandbox-"));
  onCleanup(() => rmSync(root, { recursive: true, force: true }));
  const workingDir = join(root, "projects");
  const dataDir = join(root, "data");
  const home = join(root, "home");
  const outside = join(root, "outside");
  mkdirSync(workingDir, { recursive: true });
  write(join(workingDir, "app", "README.md"), "# app\n");
  write(join(outside, "keep", "precious.txt"), "PRECIOUS");
  const secrets = {
    dataKey: write(join(dataDir, "host", "laptop", "identity.json"), '{"private_key":"DATA-DIR-KEY"}'),
    sshKey: write(join(home, ".ssh", "id_ed25519"), "SSH-PRIVATE-KEY"),
    awsCredentials: write(join(home, ".aws", "credentials"), "AWS-SECRET"),
  };
  const workspace = new WorkspaceLayout(join(dataDir, "host", "laptop", "workspace"));
  const db = openStateDatabase(join(dataDir, "host", "laptop", "state.db"));
  onCleanup(() => void db.close());
  const access = new ChannelAccess(db, workspace, () => Date.now());
  const channel = (scope: CommandScope) => channelOf(scope.platform, scope.chatId);
  const logs = {
    alice: write(workspace.channelLog(channel(ALICE)), '{"text":"ALICE-PRIVATE"}\n'),
    bob: write(workspace.channelLog(channel(BOB)), '{"text":"BOB-PRIVATE"}\n'),
  };
  write(workspace.memoryFile, "WORKSPACE-MEMORY\n");
  const parsed = HostConfigSchema.parse({
    ROUTER_SECRET: "sandbox-test-secret",
    WORKING_DIR: workingDir,
    DATA_DIR: dataDir,
    SANDBOX: "on",
    ...(typeof config === "function" ? config({ workingDir, dataDir, home, outside }) : config),
  });
  const { logger, lines } = createTestLogger();
  const sandbox = openSandbox(parsed, {
    env: { PATH: process.env.PATH, HOME: home, ...env },
    workspace,
    channelsOf: (userId) => access.channelsOf(userId),
    logger,
  });
  return {
    workingDir,
    dataDir,
    home,
    outside,
    workspace,
    access,
    secrets,
    logs,
    logLines: lines,
    sandbox,
    run: (command, scope = ALICE, options = {}) =>
      runCommand(command, {
        cwd: workingDir,
        timeoutMs: 10_000,
        maxOutputChars: 8000,
        wrap: sandbox.forScope(scope),
        ...options,
      }),
  };
}
