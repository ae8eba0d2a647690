import {
  afterEachTest,
  CleanupScope,
  type FakeOpenAI,
  type FakeTelegram,
  type SpawnedProcess,
  spawnApp,
  startFakeOpenAI,
  startFakeTelegram,
  startTunnel as startLateTunnel,
  type TranscriptEntry,
  type Tunnel,
  waitFor,
} from "@phonework/testkit";
import type { User } from "grammy/types";

// Real `phonework router` and `phonework host` processes chatting on fake platforms: the real SDKs
// inside the router (grammY, Slack's, Discord's, Lark's) talk to the fakes through their API-root
// keys. Each test sets up what it uses; everything is taken down after it, processes first.

export const scope = new CleanupScope();
afterEachTest(() => scope.run());

/** The shared secret the router is started with and startHost joins with. */
export const SECRET = "telegram-e2e-secret";

/** Whatever the shell running the tests has set: these runs decide for themselves. */
const UNSET = {
  LOG_LEVEL: undefined,
  LOG_FORMAT: undefined,
  PHONEWORK_CONFIG: undefined,
  CHAT: undefined,
  ADMINS: undefined,
  ALLOWED_USERS: undefined,
  ROUTER_LLM_BASE_URL: undefined,
  ROUTER_LLM_API_KEY: undefined,
  OPENAI_BASE_URL: undefined,
  OPENAI_API_KEY: undefined,
  TELEGRAM_BOT_TOKEN: undefined,
  TELEGRAM_MODE: undefined,
  TELEGRAM_WEBHOOK_SECRET: undefined,
  TELEGRAM_WEBHOOK_URL: undefined,
  TELEGRAM_API_ROOT: undefined,
  FEISHU_APP_ID: undefined,
  FEISHU_APP_SECRET: undefined,
  SLACK_BOT_TOKEN: undefined,
  SLACK_APP_TOKEN: undefined,
  SLACK_MODE: undefined,
  SLACK_API_URL: undefined,
  DISCORD_BOT_TOKEN: undefined,
  DISCORD_API_URL: undefined,
};

export async function fakeTelegram(): Promise<FakeTelegram> {
  const fake = await startFakeTelegram({ webhookRetryMs: 50 });
  scope.add(() => fake.close());
  return fake;
}

/** A process stopped at cleanup: SIGTERM (it stops its own children), SIGKILL if it lingers. */
export function tracked(child: SpawnedProcess): SpawnedProcess {
  scope.add(async () => {
    child.kill("SIGTERM");
    if ((await child.exitedWithin(5_000)) === "running") child.kill("SIGKILL");
    await child.exited;
  });
  return child;
}

export interface RouterProcess {
  child: SpawnedProcess;
  dataDir: string;
  /** http://127.0.0.1:<port> */
  url: string;
  nodeUrl: string;
}

/** `phonework router` with the fake's bot (polling unless `env` says otherwise), listening on port 0. */
export function startRouter(
  fake: FakeTelegram,
  env: Record<string, string | undefined> = {},
  dataDir = scope.tempDir(),
): Promise<RouterProcess> {
  return startRouterProcess({ TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.url, ...env }, dataDir);
}

/** `phonework router` on port 0 with the chat platforms `env` configures; resolved once chat started. */
export async function startRouterProcess(
  env: Record<string, string | undefined>,
  dataDir = scope.tempDir(),
): Promise<RouterProcess> {
  const child = tracked(
    spawnApp("router", {
      ...UNSET,
      ROUTER_SECRET: SECRET,
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      PROGRESS_INTERVAL_S: "0",
      ...env,
    }),
  );
  const [, url = ""] = await child.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  await child.waitForStderr(/"msg":"chat started"/);
  return { child, dataDir, url, nodeUrl: `${url.replace(/^http/, "ws")}/ws/node` };
}

/**
 * The fake model's next answer waits until `release()`: a message the node is still working on
 * (while the router is killed and started again, say).
 */
export function holdNextAnswer(model: FakeOpenAI, text: string): { release: () => void } {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  model.script(async () => {
    await held;
    return { text };
  });
  return { release: () => release() };
}

/**
 * `phonework host` joined with the shared secret, waited for until the router registered it; `dir`
 * is its WORKING_DIR and DATA_DIR (unless `env` says otherwise).
 */
export async function startHost(
  router: RouterProcess,
  nodeId: string,
  env: Record<string, string | undefined> = {},
): Promise<{ host: SpawnedProcess; dir: string }> {
  const dir = scope.tempDir();
  const host = tracked(
    spawnApp("host", {
      ...UNSET,
      ROUTER_URL: router.nodeUrl,
      ROUTER_SECRET: SECRET,
      NODE_ID: nodeId,
      WORKING_DIR: dir,
      DATA_DIR: dir,
      RECONNECT_MAX_DELAY_S: "0.3",
      LOG_LEVEL: "info",
      ...env,
    }),
  );
  await router.child.waitForStderr(new RegExp(`"nodeId":"${nodeId}".*"msg":"node registered"`), 20_000);
  return { host, dir };
}

/**
 * Alice (the one allowed user) chatting with a router whose host "box" answers with a fake model;
 * `hostEnv` adds host settings.
 */
export async function startAliceWithModel(hostEnv: Record<string, string | undefined> = {}) {
  const fake = await fakeTelegram();
  const model = await startFakeOpenAI();
  scope.add(() => model.close());
  const alice = fake.user({ first_name: "Alice", username: "alice" });
  const router = await startRouter(fake, { ALLOWED_USERS: String(alice.id) });
  await startHost(router, "box", {
    SERVES_USERS: String(alice.id),
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: "sk-test",
    ...hostEnv,
  });
  return { fake, model, alice, router, chat: telegramChat(fake, alice) };
}

/** The process's JSON log lines (stderr). */
export function logLines(child: SpawnedProcess): Array<Record<string, unknown>> {
  return child
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** One user's private chat with the bot, as they see it. */
export function telegramChat(fake: FakeTelegram, user: User) {
  const botMessages = () => fake.transcript(user.id).filter((entry) => entry.from === "bot");
  return {
    user,
    botMessages,
    /** Sends a text; returns the update (its message_id is message.message_id). */
    send: (text: string) => fake.injectText({ from: user, text }),
    /** The first bot message (sent or edited) after `afterId` whose current text matches. */
    waitForBot: (pattern: RegExp, afterId = 0, timeoutMs = 20_000): Promise<TranscriptEntry> =>
      waitFor(() => botMessages().find((m) => m.message_id > afterId && pattern.test(m.text ?? "")), {
        timeoutMs,
        message: `a bot message matching ${pattern} (chat: ${fake.renderTranscript(user.id)})`,
      }),
    /** The highest message id in the chat so far (a marker for "after this"). */
    lastId: () => fake.transcript(user.id).at(-1)?.message_id ?? 0,
    /** Bot messages that reply to the user's message `messageId`. */
    answersTo: (messageId: number) => botMessages().filter((m) => m.replyTo === messageId),
  };
}

/** A public address in front of a router, known before it starts (see testkit's startTunnel). */
export async function startTunnel(): Promise<Tunnel> {
  const tunnel = await startLateTunnel();
  scope.add(tunnel.close);
  return tunnel;
}

export const portOf = (url: string) => Number(new URL(url).port);
