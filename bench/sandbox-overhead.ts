import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostConfigSchema } from "../apps/host/src/config/host-config.ts";
import { runCommand } from "../apps/host/src/os/process-tree.ts";
import { openSandbox } from "../apps/host/src/sandbox/open-sandbox.ts";
import type { WrapArgv } from "../apps/host/src/sandbox/shell-sandbox.ts";
import { openStateDatabase } from "../apps/host/src/state-database.ts";
import { ChannelAccess } from "../apps/host/src/workspace/channel-access.ts";
import { WorkspaceLayout } from "../apps/host/src/workspace/workspace-layout.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import type { Cleanup } from "./cleanup.ts";
import { type Figure, info } from "./figure.ts";
import { percentile, round, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";

// What the sandbox adds to each command: `true` and an `ls` of 100 files, through runCommand (the
// path every user command takes) with and without bwrap. The policy is worked out per command as
// the host does it (paths resolved, the user's chats read from state.db, 20 other chats hidden).
// The four alternate, so noise hits all alike.

const WARM_UP_ROUNDS = 20;
const ROUNDS = 200;
const OWNER = { userId: "telegram:1", chatId: "telegram:1", platform: "telegram" };

function machine(cleanup: Cleanup): { workingDir: string; wrap: WrapArgv } {
  const root = tempDir(cleanup, "sandbox");
  const workingDir = join(root, "projects");
  mkdirSync(workingDir);
  for (let i = 0; i < 100; i++) writeFileSync(join(workingDir, `file-${i}.txt`), `${i}\n`);
  const dataDir = join(root, "data");
  const workspace = new WorkspaceLayout(join(dataDir, "host", "bench", "workspace"));
  for (let chat = 1; chat <= 21; chat++)
    mkdirSync(workspace.channelDir({ adapter: "telegram", chat: String(chat) }), { recursive: true });
  const db = openStateDatabase(join(dataDir, "host", "bench", "state.db"));
  cleanup.add(() => db.close());
  const access = new ChannelAccess(db, workspace, () => Date.now());
  const config = HostConfigSchema.parse({ WORKING_DIR: workingDir, DATA_DIR: dataDir, SANDBOX: "on" });
  const sandbox = openSandbox(config, {
    env: process.env,
    workspace,
    channelsOf: (userId) => access.channelsOf(userId),
    logger: createLogger({ level: "silent" }),
  });
  return { workingDir, wrap: sandbox.forScope(OWNER) };
}

type Variant = "true" | "true sandboxed" | "ls" | "ls sandboxed";

async function timeOne(command: string, cwd: string, wrap?: WrapArgv): Promise<number> {
  const started = performance.now();
  const result = await runCommand(command, {
    cwd,
    timeoutMs: 30_000,
    maxOutputChars: 8000,
    ...(wrap ? { wrap } : {}),
  });
  const ms = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`${command} failed (${result.exitCode}): ${result.stderr}`);
  if (command === "ls" && result.stdout.split("\n").filter(Boolean).length !== 100)
    throw new Error(`ls listed ${result.stdout.split("\n").length - 1} files, not 100`);
  return ms;
}

async function runRounds(workingDir: string, wrap: WrapArgv, rounds: number) {
  const sample: Record<Variant, number[]> = { true: [], "true sandboxed": [], ls: [], "ls sandboxed": [] };
  for (let round = 0; round < rounds; round++) {
    sample.true.push(await timeOne("true", workingDir));
    sample["true sandboxed"].push(await timeOne("true", workingDir, wrap));
    sample.ls.push(await timeOne("ls", workingDir));
    sample["ls sandboxed"].push(await timeOne("ls", workingDir, wrap));
  }
  return sample;
}

export async function measureSandboxOverhead(cleanup: Cleanup): Promise<Figure[]> {
  const { workingDir, wrap } = machine(cleanup); // throws where the sandbox cannot run (the reason is the note)
  await runRounds(workingDir, wrap, WARM_UP_ROUNDS);
  const sample = await runRounds(workingDir, wrap, ROUNDS);
  const p = (variant: Variant, at: number) => percentile(sortedCopy(sample[variant]), at);
  return (["true", "ls"] as const).flatMap((command) => {
    const [plain, boxed] = [p(command, 50), p(`${command} sandboxed`, 50)];
    const what = command === "true" ? "`true`" : "`ls` of 100 files";
    return [
      info(
        `${what} unsandboxed p50`,
        round(plain, 3),
        "ms",
        `${ROUNDS} runs each through runCommand (spawn /bin/sh -c, output collected, exit awaited)`,
      ),
      info(
        `${what} sandboxed p50`,
        round(boxed, 3),
        "ms",
        "the same in bwrap: policy per command (realpath of each path, the user's chats from state.db, 20 others hidden), new pid namespace, read-only root, tmpfs /tmp and hidden dirs",
      ),
      info(`${what} unsandboxed p99`, round(p(command, 99), 3), "ms"),
      info(`${what} sandboxed p99`, round(p(`${command} sandboxed`, 99), 3), "ms"),
      info(`${what} sandbox overhead p50`, round(boxed - plain, 3), "ms"),
      info(`${what} sandboxed ÷ unsandboxed p50`, round(boxed / plain), "×"),
    ];
  });
}
