import { createHost, type Host, HostConfigSchema, type MessageHandler } from "@phonework/host";
import {
  afterEachTest,
  type CleanupScope,
  createTestLogger,
  makeTempDir,
  startTcpProxy,
  type TcpProxy,
} from "@phonework/testkit";
import { type RouterConfig, RouterConfigSchema } from "../src/config/router-config.ts";
import { createRouter, type Router, type RouterDeps } from "../src/create-router.ts";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";

// Builds real routers and hosts on loopback port 0 for the tests, and tears them down after each.

export const SECRET = "test-secret-123";
/** Test routers serve the admin's full GET /health with this token. */
export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const adminHeaders = { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } };
const cleanups: Array<() => Promise<void> | void> = [];

afterEachTest(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A memory-chat user's (or chat's) id as the router stores it and hosts receive it: qualified by the
 * adapter's name. The memory adapter itself records and is driven by its own ids ("u1").
 */
export const memoryId = (id: string) => `memory:${id}`;

export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.push(fn);
}

/**
 * For a world the file's tests share, built in beforeAll: hands the teardown registered so far to
 * `scope` (run it in afterAll), so it outlives the first test.
 */
export function keepForFile(scope: CleanupScope): void {
  for (const step of cleanups.splice(0)) scope.add(step);
}

export function tempDataDir(): string {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  return dir.path;
}

export interface TestRouter {
  router: Router;
  chat: MemoryChatAdapter;
  url: string;
  nodeUrl: string;
  config: RouterConfig;
  logs: ReturnType<typeof createTestLogger>["lines"];
}

/** A router's config for a test: on loopback, a port of its own, a fresh DATA_DIR, no progress messages. */
export function testRouterConfig(overrides: Partial<Record<keyof RouterConfig, unknown>> = {}): RouterConfig {
  return RouterConfigSchema.parse({
    ROUTER_SECRET: SECRET,
    ADMIN_TOKEN,
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: overrides.DATA_DIR ?? tempDataDir(),
    PROGRESS_INTERVAL_S: 0,
    ...overrides,
  });
}

export async function startTestRouter(
  overrides: Partial<Record<keyof RouterConfig, unknown>> = {},
  deps: Pick<RouterDeps, "consoleAssets" | "clock"> = {},
): Promise<TestRouter> {
  // The memory chat's users are the tests' own.
  const config = testRouterConfig({ ALLOWED_USERS: "*", ...overrides });
  const { logger, lines } = createTestLogger();
  const chat = createMemoryChatAdapter();
  const router = createRouter(config, { logger, chat: [chat], ...deps });
  const url = await router.start();
  let closed = false;
  const close = router.close.bind(router);
  router.close = async (options) => {
    if (closed) return;
    closed = true;
    await close(options);
  };
  onCleanup(() => router.close({ drainMs: 0 }));
  return { router, chat, url, nodeUrl: router.nodeUrl, config, logs: lines };
}

export function startTestHost(
  nodeUrl: string,
  overrides: Record<string, unknown> = {},
  handler?: MessageHandler,
): Host {
  const config = HostConfigSchema.parse({
    ROUTER_URL: nodeUrl,
    ROUTER_SECRET: SECRET,
    NODE_ID: "home-pc",
    WORKING_DIR: process.cwd(),
    DATA_DIR: tempDataDir(),
    RECONNECT_MAX_DELAY_S: 0.2,
    ...overrides,
  });
  const host = createHost(config, { logger: createTestLogger().logger, ...(handler ? { handler } : {}) });
  host.start();
  onCleanup(() => host.stop());
  return host;
}

/** A handler that answers "<node>: <text>", or waits for `release` when the text is "slow". */
export function echoHandler(nodeId: string): MessageHandler & { release: () => void } {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release: () => release(),
    async handle(request, ctx) {
      if (request.text === "slow") {
        ctx.progress("working on it");
        await gate;
      }
      return `${nodeId}: ${request.text}`;
    },
  };
}

/** A TCP proxy in front of the router's port, so a test can cut or stall a host's link. */
export async function proxyTo(nodeUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const port = Number(new URL(nodeUrl).port);
  const proxy = await startTcpProxy(port);
  onCleanup(() => proxy.close());
  return { proxy, url: proxy.wrap(nodeUrl) };
}
