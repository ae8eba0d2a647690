import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  afterEachTest,
  createTestLogger,
  type FakeOpenAI,
  type FakeRouter,
  type FakeRouterOptions,
  makeTempDir,
  startFakeOpenAI,
  startFakeRouter,
} from "@phonework/testkit";
import { HostConfigSchema } from "../src/config/host-config.ts";
import type { OutgoingFile, ToolContext } from "../src/contracts/tool.ts";
import { createHost, type Host, type HostDeps } from "../src/create-host.ts";

// A scratch WORKING_DIR with a small project tree, a secret outside it, and a symlink out.

const cleanups: Array<() => void | Promise<void>> = [];
afterEachTest(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});
export const onCleanup = (fn: () => void | Promise<void>) => cleanups.push(fn);

export interface Workspace {
  root: string;
  workingDir: string;
  outside: string;
}

export function makeWorkspace(): Workspace {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const workingDir = join(dir.path, "projects");
  const outside = join(dir.path, "outside");
  mkdirSync(join(workingDir, "todo_app", "src"), { recursive: true });
  mkdirSync(join(workingDir, "audit"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "TOP SECRET");
  writeFileSync(join(workingDir, "todo_app", "README.md"), "# Todo\nTODO: write docs\n");
  writeFileSync(join(workingDir, "todo_app", "src", "app.py"), "def main():\n    pass  # TODO: implement\n");
  writeFileSync(
    join(workingDir, "audit", "abc123.jsonl"),
    `${Array.from({ length: 100 }, (_, i) => JSON.stringify({ line: i + 1 })).join("\n")}\n`,
  );
  symlinkSync(outside, join(workingDir, "escape"));
  return { root: dir.path, workingDir, outside };
}

export function toolContext(
  overrides: Partial<ToolContext> = {},
): ToolContext & { files: OutgoingFile[]; lines: string[] } {
  const files: OutgoingFile[] = [];
  const lines: string[] = [];
  return {
    signal: new AbortController().signal,
    userId: "u1",
    chatId: "c1",
    platform: "memory",
    progress: (line) => lines.push(line),
    sendFile: async (file) => {
      files.push(file);
    },
    files,
    lines,
    ...overrides,
  };
}

/**
 * A real host (createHost) dialling `routerUrl`, with a fresh working and data directory and a
 * fast reconnect, started now and stopped after the test.
 */
export function startHost(
  routerUrl: string,
  secret: string,
  overrides: Record<string, unknown> = {},
  deps: Partial<HostDeps> = {},
): Host {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  const config = HostConfigSchema.parse({
    ROUTER_URL: routerUrl,
    ROUTER_SECRET: secret,
    NODE_ID: "laptop",
    WORKING_DIR: dir.path,
    DATA_DIR: dir.path,
    RECONNECT_MAX_DELAY_S: 0.2,
    ...overrides,
  });
  const host = createHost(config, { logger: createTestLogger().logger, ...deps });
  host.start();
  onCleanup(() => host.stop());
  return host;
}

/**
 * A real host with a model (the fake OpenAI server) behind a fake router, its WORKING_DIR and
 * DATA_DIR in `dir` (a fresh temp dir unless given: pass the same one to restart on its state).
 */
export async function startHostWithModel(
  overrides: Record<string, unknown> = {},
  dir: { path: string; remove?: () => void } = makeTempDir(),
  deps: Partial<HostDeps> = {},
  routerOptions: Omit<FakeRouterOptions, "secret"> = {},
): Promise<{ router: FakeRouter; model: FakeOpenAI; host: Host; dir: string }> {
  const secret = "host-with-model";
  if (dir.remove) onCleanup(dir.remove);
  const router = await startFakeRouter({ secret, ...routerOptions });
  const model = await startFakeOpenAI();
  onCleanup(() => router.close());
  onCleanup(() => model.close());
  const host = startHost(
    router.url,
    secret,
    {
      WORKING_DIR: dir.path,
      DATA_DIR: dir.path,
      OPENAI_API_KEY: "k",
      OPENAI_BASE_URL: model.url,
      OPENAI_MAX_RETRIES: 0,
      ...overrides,
    },
    deps,
  );
  await host.ready();
  return { router, model, host, dir: dir.path };
}

/**
 * Sends chat messages as `user` in `chat` through the fake router and waits for each answer: the
 * way a user talks to the host in these tests. `extra` adds fields to the forward (attachments).
 */
export function chatAs(router: FakeRouter, defaults: { user: string; chat: string; platform: string }) {
  let next = 0;
  return async (
    text: string,
    from: { user: string; chat: string } = defaults,
    extra: Record<string, unknown> = {},
  ): Promise<string> => {
    const id = `r${++next}`;
    router.latest().send({
      type: "forward",
      id,
      user_id: from.user,
      chat_id: from.chat,
      platform: defaults.platform,
      text,
      ...extra,
    });
    return String((await router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000)).text);
  };
}
