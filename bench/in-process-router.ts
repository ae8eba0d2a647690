import { type RouterConfig, RouterConfigSchema } from "../apps/router/src/config/router-config.ts";
import { createRouter, type Router, type RouterDeps } from "../apps/router/src/create-router.ts";
import {
  createMemoryChatAdapter,
  type MemoryChatAdapter,
} from "../apps/router/src/platforms/memory/memory-adapter.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import type { Cleanup } from "./cleanup.ts";
import { BENCH_SECRET } from "./router-control.ts";
import { tempDir } from "./temp-dir.ts";

// A real router in the bench's own process, chatting through the memory adapter, whose sends
// are tapped so a waiting user learns of its reply the moment the router hands it over.

type ReplyWaiter = { match: (text: string) => boolean; resolve: (text: string) => void };

export interface InProcessRouter {
  readonly router: Router;
  /** Where it listens for HTTP (the console), e.g. http://127.0.0.1:PORT. */
  readonly url: string;
  readonly chat: MemoryChatAdapter;
  /** Resolves with the next text sent to `userId` that `match` accepts (any text by default). */
  nextReply(userId: string, match?: (text: string) => boolean): Promise<string>;
}

export async function startInProcessRouter(
  cleanup: Cleanup,
  overrides: Partial<Record<keyof RouterConfig, unknown>> = {},
  deps: Pick<RouterDeps, "consoleAssets" | "db"> = {},
): Promise<InProcessRouter> {
  const config = RouterConfigSchema.parse({
    ROUTER_SECRET: BENCH_SECRET,
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: tempDir(cleanup, "router"),
    PROGRESS_INTERVAL_S: 0,
    ALLOWED_USERS: "*", // the bench's simulated users
    ...overrides,
  });
  const chat = createMemoryChatAdapter();
  const waiters = new Map<string, ReplyWaiter[]>();
  const send = chat.send.bind(chat);
  chat.send = async (to, text, options) => {
    const sent = await send(to, text, options);
    const queue = waiters.get(to.userId) ?? [];
    const index = queue.findIndex((waiter) => waiter.match(text));
    if (index >= 0) queue.splice(index, 1)[0]?.resolve(text);
    return sent;
  };

  const router = createRouter(config, { logger: createLogger({ level: "silent" }), chat: [chat], ...deps });
  cleanup.add(() => router.close({ drainMs: 0 }));
  const url = await router.start();
  return {
    router,
    url,
    chat,
    nextReply: (userId, match = () => true) =>
      new Promise((resolve) => {
        const queue = waiters.get(userId) ?? [];
        queue.push({ match, resolve });
        waiters.set(userId, queue);
      }),
  };
}
