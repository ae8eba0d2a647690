import type { Host, MessageHandler } from "@phonework/host";
import type { Clock } from "@phonework/runtime";
import { createTestLogger, type FakeFeishu } from "@phonework/testkit";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { selectChatAdapters } from "../src/config/select-adapters.ts";
import { createRouter, type Router } from "../src/create-router.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { createTerminalAdapter } from "../src/platforms/stdin/stdin-adapter.ts";
import { ADMIN_TOKEN, echoHandler, onCleanup, SECRET, startTestHost, tempDataDir } from "./support.ts";

// A real router whose chat is Feishu (the real SDK against the fake Feishu server), as main.ts wires it;
// or any other platform's, by its keys.

export function startFeishuRouter(
  fake: FakeFeishu,
  overrides: Record<string, unknown> = {},
  options: { clock?: Clock; logLevel?: string } = {},
) {
  const feishu = { FEISHU_APP_ID: fake.appId, FEISHU_APP_SECRET: fake.appSecret, FEISHU_DOMAIN: fake.url };
  return startInProcessRouter({ ...feishu, ALLOWED_USERS: "ou_alice", ...overrides }, options);
}

/** A real router in this process with the chat platforms `settings` configure (a loopback secret, no progress edits). */
export async function startInProcessRouter(
  settings: Record<string, unknown>,
  options: { clock?: Clock; logLevel?: string } = {},
) {
  const config = RouterConfigSchema.parse({
    ROUTER_SECRET: SECRET,
    ADMIN_TOKEN,
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: 0,
    DATA_DIR: settings.DATA_DIR ?? tempDataDir(),
    PROGRESS_INTERVAL_S: 0,
    ...settings,
  });
  const { logger, lines } = createTestLogger(options.logLevel ?? "warn");
  const db = openRouterDatabase(routerDatabasePath(config.DATA_DIR));
  const chat = await selectChatAdapters(config, {
    logger,
    clock: options.clock ?? { now: () => Date.now() },
    db,
    stdinIsTerminal: false,
    terminal: () => createTerminalAdapter({ input: process.stdin, output: process.stdout, filesDir: "/tmp" }),
  });
  const router = createRouter(config, { logger, chat, db });
  const url = await router.start();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await router.close({ drainMs: 0 });
  };
  onCleanup(close);
  return { router, url, config, logs: lines, close };
}

export async function withHost(
  router: Router,
  nodeId = "home-pc",
  handler: MessageHandler = echoHandler(nodeId),
): Promise<Host> {
  const host = startTestHost(router.nodeUrl, { NODE_ID: nodeId }, handler);
  await host.ready();
  return host;
}

/** A host that answers "<node>: <text>" and remembers every text that reached it. */
export async function recordingHost(router: Router, nodeId = "home-pc") {
  const received: string[] = [];
  const host = await withHost(router, nodeId, {
    async handle(request) {
      received.push(request.text);
      return `${nodeId}: ${request.text}`;
    },
  });
  return { host, received };
}

export const textOf = (message: { msg_type: string; content: unknown }): string => {
  const content = message.content as Record<string, unknown>;
  if (message.msg_type === "text") return String(content.text);
  const body = content.body as { elements?: Array<{ content?: string }> } | undefined;
  return body?.elements?.map((e) => e.content ?? "").join("") ?? "";
};

/** Texts the bot sent, optionally to one chat. */
export const sentTexts = (fake: FakeFeishu, chatId?: string) =>
  fake
    .sent()
    .filter((m) => !chatId || m.chat_id === chatId || m.receive_id === chatId)
    .map(textOf);
