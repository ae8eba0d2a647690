import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHost, type Host, HostConfigSchema, type MessageHandler, newIdentity } from "@phonework/host";
import {
  createMemoryChatAdapter,
  createRouter,
  type MemoryChatAdapter,
  RouterConfigSchema,
} from "@phonework/router";
import { afterEachTest, CleanupScope, captureStream, createTestLogger, waitFor } from "@phonework/testkit";
import { ok } from "../src/doctor/checks/check.ts";
import { doctor } from "../src/doctor/run-doctor.ts";
import type { AppName } from "../src/programs/app-name.ts";

// Runs the doctor in-process against real routers, hosts and fake servers on loopback, with an
// environment the test writes in full (nothing from this process's own).

export const scope = new CleanupScope();
afterEachTest(() => scope.run());

/** A date before Node 20's end of life; tests pin the Node version too. */
export const NOW = Date.UTC(2026, 0, 15);

export interface DoctorRun {
  failures: number;
  output: string;
  lines: string[];
  /** The line of the check titled `title` (the text after the icon starts with it). */
  line(title: string): string;
}

export async function runDoctorIn(
  app: AppName,
  env: Record<string, string | undefined>,
  options: {
    offline?: boolean;
    nodeVersion?: string;
    overrides?: Record<string, string>;
    timeoutMs?: number;
  } = {},
): Promise<DoctorRun> {
  const { stream, output } = captureStream(false);
  const failures = await doctor(
    {
      app,
      args: { overrides: options.overrides ?? {} },
      offline: options.offline ?? false,
      env,
      out: stream,
    },
    {
      clock: { now: () => NOW },
      nodeVersion: options.nodeVersion ?? "v22.12.0",
      timeoutMs: options.timeoutMs ?? 2_000,
      modelTimeoutMs: 3_000,
      // Pinned: a worker thread per run would cost ~100 ms of CPU in each of these tests; the
      // check itself is doctor-checkpoints.unit.test.ts's, and the executable's runs it for real.
      checkpoints: async () => ok("checkpoints", "not started in these tests"),
    },
  );
  const lines = output().split("\n").filter(Boolean);
  return {
    failures,
    output: output(),
    lines,
    line: (title) => {
      const found = lines.find((line) => line.replace(/^\S+ /, "").startsWith(`${title}:`));
      if (!found) throw new Error(`no "${title}" line in:\n${output()}`);
      return found;
    },
  };
}

/** A fresh directory for DATA_DIR, WORKING_DIR and HOME, with no coding CLIs on PATH. */
export function hostEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dir = scope.tempDir();
  return { DATA_DIR: dir, WORKING_DIR: dir, HOME: dir, PATH: "", ...extra };
}

/** An executable shell script in `dir` that prints `output` (a fake `claude --version`). */
export function fakeExecutable(dir: string, name: string, script: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface LiveRouter {
  nodeUrl: string;
  chat: MemoryChatAdapter;
  /** A one-time join code from the admin's /pair, as a person gets one. */
  joinCode(nodeId: string): Promise<string>;
}

export const ADMIN = "u1";

/** A real router on loopback port 0, with an admin and an in-memory chat. */
export async function startRouter(overrides: Record<string, unknown> = {}): Promise<LiveRouter> {
  const config = RouterConfigSchema.parse({
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: scope.tempDir(),
    ADMINS: ADMIN,
    PROGRESS_INTERVAL_S: 0,
    ...overrides,
  });
  const chat = createMemoryChatAdapter();
  const router = createRouter(config, { logger: createTestLogger().logger, chat: [chat] });
  await router.start();
  scope.add(() => router.close({ drainMs: 0 }));
  return {
    nodeUrl: router.nodeUrl,
    chat,
    async joinCode(nodeId) {
      const before = chat.textsFor(ADMIN).length;
      chat.receive({ userId: ADMIN, text: `/pair ${nodeId}` });
      const reply = await waitFor(() => chat.textsFor(ADMIN)[before]);
      const code = reply.split("\n").find((line) => line.startsWith(`${nodeId}:`));
      if (!code) throw new Error(`no join code in: ${reply}`);
      return code;
    },
  };
}

const echo = (nodeId: string): MessageHandler => ({
  handle: async (request) => `${nodeId}: ${request.text}`,
});

/** A running host, paired through a join code (its key saved in `env.DATA_DIR`), answering "<id>: text". */
export async function startPairedHost(router: LiveRouter, nodeId: string, env: Record<string, string>) {
  const code = await router.joinCode(nodeId);
  return startHost(router.nodeUrl, env, { identity: newIdentity(env.DATA_DIR ?? "", nodeId, code), nodeId });
}

export async function startHost(
  url: string,
  env: Record<string, string>,
  options: { identity?: ReturnType<typeof newIdentity>; nodeId: string; secret?: string },
): Promise<Host> {
  const config = HostConfigSchema.parse({
    ROUTER_URL: url,
    DATA_DIR: env.DATA_DIR,
    WORKING_DIR: env.WORKING_DIR,
    NODE_ID: options.nodeId,
    RECONNECT_MAX_DELAY_S: 0.2,
    ...(options.secret ? { ROUTER_SECRET: options.secret } : {}),
  });
  const host = createHost(config, {
    logger: createTestLogger().logger,
    handler: echo(options.nodeId),
    ...(options.identity ? { identity: options.identity } : {}),
  });
  host.start();
  scope.add(() => host.stop());
  await host.ready();
  return host;
}
