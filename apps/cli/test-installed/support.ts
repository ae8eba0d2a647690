import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  CleanupScope,
  type FakeTelegram,
  type SpawnedProcess,
  spawnProcess,
  startFakeTelegram,
  type TranscriptEntry,
  waitFor,
} from "@phonework/testkit";
import { afterEach, expect } from "vitest";
import { installation } from "./installation.ts";

// The installed `phonework`, run as a user runs it: the executable npm put in <prefix>/bin, found
// on PATH, on the Node under test, with nothing of this process's environment but what is given
// (no repository, no node_modules/.bin, no keys). Each test sets up what it uses; everything is
// taken down after it, processes first.

export const scope = new CleanupScope();
afterEach(() => scope.run());

/** `phonework …args` from the install, in a fresh HOME and working directory. */
export function phonework(args: string[], env: Record<string, string | undefined> = {}): SpawnedProcess {
  const home = scope.tempDir();
  const child = spawnProcess("phonework", args, {
    cwd: home,
    inheritEnv: false,
    env: { PATH: installation().path, HOME: home, TMPDIR: tmpdir(), LANG: "C.UTF-8", ...env },
  });
  scope.add(async () => {
    child.kill("SIGTERM");
    const late = new Promise((resolve) => setTimeout(resolve, 5_000).unref());
    await Promise.race([child.exited, late]);
    child.kill("SIGKILL");
    await child.exited;
  });
  return child;
}

/** The shared secret of the loopback routers here (hosts join by it unless a test pairs them). */
export const SECRET = "installed-suite-secret";

export interface RouterProcess {
  child: SpawnedProcess;
  dataDir: string;
  /** http://127.0.0.1:<port> */
  url: string;
  nodeUrl: string;
}

/** `phonework router` on loopback port 0, its log (JSON) on stderr; waits until its chat started. */
export async function startRouter(env: Record<string, string | undefined>): Promise<RouterProcess> {
  const dataDir = scope.tempDir();
  const child = phonework(["router"], {
    ROUTER_SECRET: SECRET,
    ROUTER_HOST: "127.0.0.1",
    ROUTER_PORT: "0",
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    PROGRESS_INTERVAL_S: "0",
    ...env,
  });
  const [, url = ""] = await logged(child, /"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  await logged(child, /"msg":"chat started"/);
  return { child, dataDir, url, nodeUrl: `${url.replace(/^http/, "ws")}/ws/node` };
}

/** `phonework host` joined by the shared secret, waited for until the router registered it. */
export async function startHost(
  router: RouterProcess,
  nodeId: string,
  env: Record<string, string | undefined> = {},
): Promise<SpawnedProcess> {
  const dir = scope.tempDir();
  const host = phonework(["host"], {
    ROUTER_URL: router.nodeUrl,
    ROUTER_SECRET: SECRET,
    NODE_ID: nodeId,
    WORKING_DIR: dir,
    DATA_DIR: dir,
    RECONNECT_MAX_DELAY_S: "0.3",
    LOG_LEVEL: "info",
    SHELL: "/bin/sh",
    ...env,
  });
  await nodeRegistered(router, nodeId);
  return host;
}

export async function nodeRegistered(router: RouterProcess, nodeId: string): Promise<void> {
  await logged(router.child, new RegExp(`"nodeId":"${nodeId}".*"msg":"node registered"`));
}

/**
 * Waits for a line on the process's stderr; fails at once, with the end of its stderr, if the
 * process exits first (a router whose chat platform failed at start stops: no waiting out a timeout).
 */
export async function logged(
  child: SpawnedProcess,
  pattern: RegExp,
  timeoutMs = 30_000,
): Promise<RegExpMatchArray> {
  const line = child.waitForStderr(pattern, timeoutMs);
  line.catch(() => {}); // the exit below may win the race; this wait then times out unheard
  const outcome = await Promise.race([
    line.then((match) => ({ match })),
    child.exited.then((exit) => ({ exit })),
  ]);
  if ("match" in outcome) return outcome.match;
  // The line may have come just before the exit.
  const late = child.stderr().match(pattern);
  if (late) return late;
  const { code, signal } = outcome.exit;
  throw new Error(
    `exited (${code ?? signal}) before logging ${pattern}; stderr ends:\n${child.stderr().slice(-1500)}`,
  );
}

export async function fakeTelegram(): Promise<FakeTelegram> {
  const fake = await startFakeTelegram({ webhookRetryMs: 50 });
  scope.add(() => fake.close());
  return fake;
}

export type TelegramUser = ReturnType<FakeTelegram["user"]>;

/** The router's Telegram settings for the fake's bot, `user` allowed (its only user, so its admin). */
export const telegramEnv = (fake: FakeTelegram, user: TelegramUser) => ({
  TELEGRAM_BOT_TOKEN: fake.token,
  TELEGRAM_API_ROOT: fake.url,
  ALLOWED_USERS: String(user.id),
});

/** One user's private chat with the bot, as they see it. */
export function telegramChat(fake: FakeTelegram, user: TelegramUser) {
  const botMessages = () => fake.transcript(user.id).filter((entry) => entry.from === "bot");
  return {
    /** Sends a text and waits for the first bot message after it (sent or edited) that matches. */
    async say(text: string, expected: RegExp, timeoutMs = 30_000): Promise<TranscriptEntry> {
      const after = fake.transcript(user.id).at(-1)?.message_id ?? 0;
      fake.injectText({ from: user, text });
      return waitFor(() => botMessages().find((m) => m.message_id > after && expected.test(m.text ?? "")), {
        timeoutMs,
        message: `a bot message matching ${expected} (chat: ${fake.renderTranscript(user.id)})`,
      });
    },
  };
}

/** A Telegram world: the fake Bot API, `phonework router` polling it, and one `phonework host`. */
export async function telegramWorld(
  options: { router?: Record<string, string>; host?: Record<string, string | undefined> } = {},
) {
  const fake = await fakeTelegram();
  const alice = fake.user({ first_name: "Alice", username: "alice" });
  const router = await startRouter({ ...telegramEnv(fake, alice), ...options.router });
  const host = await startHost(router, "box", { SERVES_USERS: String(alice.id), ...options.host });
  return { fake, alice, router, host, chat: telegramChat(fake, alice) };
}

/**
 * Waits until a running program's database has its WAL back at 0 bytes: SQLite alone never shrinks
 * it while the program runs, so the idle TRUNCATE checkpoint ran (a tick or two after the last
 * write). An idle program checkpoints on its main thread; that the package's checkpoint worker
 * thread loads better-sqlite3 is `phonework doctor`'s "checkpoints" check (doctor.test.ts).
 */
export async function walCheckpointed(child: SpawnedProcess, database: string): Promise<void> {
  await waitFor(() => statSync(`${database}-wal`).size === 0, {
    timeoutMs: 10_000,
    message: `${database}-wal truncated by a checkpoint`,
  });
  expect(child.stderr()).not.toContain("WAL checkpoint failed");
}
