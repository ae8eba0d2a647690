import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as deadline } from "node:timers/promises";
import { waitFor } from "./shared/wait-for.ts";
import { makeTempDir } from "./temp-dir.ts";

// Real child processes for end-to-end tests: the built `phonework` (the files the package ships),
// started with node, as a user starts it.

export const repoRoot = join(import.meta.dirname, "..", "..", "..");

export interface SpawnedProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Waits until stdout (or stderr) matches. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  writeLine(line: string): void;
  endInput(): void;
  exited: Promise<ProcessExit>;
  /** How it exited, or "running" if it has not within `ms` (a deadline, not a pause: it resolves at the exit). */
  exitedWithin(ms: number): Promise<ProcessExit | "running">;
  kill(signal?: NodeJS.Signals): void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export function spawnProcess(
  command: string,
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    /** false: `env` is the whole environment, nothing of this process's own (as `env -i`). */
    inheritEnv?: boolean;
  } = {},
): SpawnedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd ?? repoRoot,
    env: options.inheritEnv === false ? { ...options.env } : { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const wait =
    (read: () => string, name: string) =>
    (pattern: RegExp, timeoutMs = 15_000) =>
      waitFor(() => read().match(pattern), {
        timeoutMs,
        message: `${name} matching ${pattern} (stdout: ${out.slice(-500)} | stderr: ${err.slice(-800)})`,
      });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForStdout: wait(() => out, "stdout"),
    waitForStderr: wait(() => err, "stderr"),
    writeLine: (line) => child.stdin?.write(`${line}\n`),
    endInput: () => child.stdin?.end(),
    exited,
    exitedWithin: async (ms) => {
      const giveUp = new AbortController();
      const late = deadline(ms, "running" as const, { signal: giveUp.signal, ref: false }).catch(
        () => "running" as const,
      );
      try {
        return await Promise.race([exited, late]);
      } finally {
        giveUp.abort();
      }
    },
    kill: (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/**
 * Runs a package script (`pnpm -s <script>`) exactly as a user would. Under `pnpm test`,
 * npm_execpath is the pnpm running the tests, so the same one is used, on PATH or not.
 */
export function spawnPnpmScript(script: string, env: Record<string, string | undefined>): SpawnedProcess {
  const pnpm = process.env.npm_execpath?.includes("pnpm")
    ? { command: process.execPath, args: [process.env.npm_execpath] }
    : { command: "pnpm", args: [] };
  return spawnProcess(pnpm.command, [...pnpm.args, "-s", script], { cwd: repoRoot, env });
}

/** The `phonework` executable's source, which the package scripts run with the tsx loader. */
export const cliMain = join(repoRoot, "apps", "cli", "src", "main.ts");

/** The built `phonework` executable (`pnpm build`; the test suite's global setup builds it). */
export const builtCli = join(repoRoot, "apps", "cli", "dist", "phonework.js");

/**
 * Runs the built `phonework <command> …args` as one node process, exactly as the installed package
 * runs, so a signal reaches the app itself.
 */
export function spawnApp(
  command: "router" | "host" | "standalone" | "pair" | "doctor" | "service",
  env: Record<string, string | undefined>,
  args: string[] = [],
): SpawnedProcess {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run pnpm build (pnpm test builds it)`);
  return spawnProcess(process.execPath, [builtCli, command, ...args], { env });
}

/**
 * `pnpm host` as its own process, reconnecting fast, with a fresh working and data directory —
 * or `dataDir` to reuse one (a host restarted with its state). `cleanup` kills it and removes
 * the directory it created.
 */
export function spawnHostApp(options: {
  routerUrl: string;
  /** The shared secret of a loopback router; or pass `joinCode` (or a DATA_DIR already paired). */
  secret?: string;
  joinCode?: string;
  nodeId?: string;
  servesUsers?: string;
  dataDir?: string;
  /** More configuration (a model, scheduler timings…). */
  env?: Record<string, string>;
}): { host: SpawnedProcess; cleanup: () => void } {
  const dir = options.dataDir ? undefined : makeTempDir();
  const dataDir = options.dataDir ?? (dir?.path as string);
  const host = spawnApp("host", {
    ROUTER_URL: options.routerUrl,
    ROUTER_SECRET: options.secret ?? "",
    JOIN_CODE: options.joinCode ?? "",
    NODE_ID: options.nodeId ?? "",
    SERVES_USERS: options.servesUsers ?? "",
    WORKING_DIR: dataDir,
    DATA_DIR: dataDir,
    RECONNECT_MAX_DELAY_S: "0.3",
    LOG_LEVEL: "info",
    ...options.env,
  });
  return {
    host,
    cleanup: () => {
      host.kill("SIGKILL");
      dir?.remove();
    },
  };
}

/** GET /health of a router: the admin's full view with `adminToken`, else the public summary. */
export async function fetchHealth(
  baseUrl: string,
  adminToken?: string,
): Promise<{ status: string; nodes: Array<{ node_id: string; status: string }> }> {
  const headers = adminToken ? { Authorization: `Bearer ${adminToken}` } : undefined;
  return (await (await fetch(`${baseUrl}/health`, headers ? { headers } : {})).json()) as {
    status: string;
    nodes: Array<{ node_id: string; status: string }>;
  };
}
