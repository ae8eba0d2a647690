import { join } from "node:path";
import { createMemoryChatAdapter, type MemoryChatAdapter } from "@phonework/router";
import type { Clock } from "@phonework/runtime";
import { createTestLogger, repoRoot, waitFor } from "@phonework/testkit";
import { type StandaloneConfig, StandaloneConfigSchema } from "../src/config.ts";
import { type Standalone, startStandalone } from "../src/standalone.ts";

/** The admin token of harness routers' full GET /health. */
export const HARNESS_ADMIN_TOKEN = "harness-admin-token-0123456789";

// The whole product in one process with an in-memory chat: tests talk to it as a user would.
// The memory adapter records and takes its own ids ("me"); the router stores them, and hosts
// receive them, qualified by the adapter's name ("memory:me").

export const CLAUDE_BIN = join(repoRoot, "node_modules", ".bin", "claude");
export const CODEX_BIN = join(repoRoot, "node_modules", ".bin", "codex");

export interface ChatHarness {
  app: Standalone;
  chat: MemoryChatAdapter;
  config: StandaloneConfig;
  /** Sends a message and waits for the first new reply (not a progress line) matching `match`. */
  ask(text: string, match?: (reply: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Everything the user has been sent so far (final texts). */
  texts(): string[];
  /** Every progress line the user was shown, across all edits of progress messages. */
  progressLines(): string[];
  stop(): Promise<void>;
}

export async function startHarness(
  overrides: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  userId = "me",
  clock?: Clock,
): Promise<ChatHarness> {
  const config = StandaloneConfigSchema.parse({
    NODE_ID: "home-pc",
    PROGRESS_INTERVAL_S: 0,
    ADMIN_TOKEN: HARNESS_ADMIN_TOKEN,
    ALLOWED_USERS: "*", // the memory chat's users are the tests' own: access is deny by default
    ...overrides,
  });
  const chat = createMemoryChatAdapter();
  const app = await startStandalone(config, {
    logger: createTestLogger("warn").logger,
    chat,
    env,
    ...(clock ? { clock } : {}),
  });
  const texts = () => chat.textsFor(userId);
  return {
    app,
    chat,
    config,
    texts,
    progressLines: () => [
      ...new Set(
        chat.sent
          .filter((m) => m.to.userId === userId)
          .flatMap((m) => m.history.flatMap((text) => text.split("\n")))
          .filter((line) => line.startsWith("… ")),
      ),
    ],
    async ask(text, match = () => true, timeoutMs = 30_000) {
      const before = texts().length;
      chat.receive({ userId, text });
      return waitFor(
        () =>
          texts()
            .slice(before)
            .find((t) => !t.startsWith("… ") && match(t)),
        { message: `a reply to "${text}"`, timeoutMs },
      );
    },
    stop: () => app.stop(),
  };
}
