import { readFileSync, realpathSync } from "node:fs";
import {
  CleanupScope,
  type FakeTelegram,
  type SpawnedProcess,
  spawnApp,
  startFakeOpenAI,
  startFakeTelegram,
  waitFor,
} from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// `phonework standalone` with Telegram configured chats on Telegram: one real process (router and
// host inside), its grammY polling the fake Bot API, its assistant a fake OpenAI-compatible model.

const scope = new CleanupScope();
afterEach(() => scope.run());

/** Whatever the shell running the tests has set: these runs decide for themselves. */
const UNSET = {
  LOG_LEVEL: undefined,
  LOG_FORMAT: undefined,
  PHONEWORK_CONFIG: undefined,
  CHAT: undefined,
  ADMINS: undefined,
  ROUTER_HOST: undefined,
  ROUTER_PORT: undefined,
  FEISHU_APP_ID: undefined,
  TELEGRAM_MODE: undefined,
  OPENAI_MODEL: undefined,
};

function jsonLines(child: SpawnedProcess): Array<Record<string, unknown>> {
  return child
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function fakeTelegram(): Promise<FakeTelegram> {
  const fake = await startFakeTelegram();
  scope.add(() => fake.close());
  return fake;
}

describe("pnpm standalone with Telegram configured (real process, fake Bot API, fake model)", () => {
  it("answers a Telegram user with the assistant; a document lands in WORKING_DIR/inbox and the assistant is told its path", async () => {
    const fake = await fakeTelegram();
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const bea = fake.user({ first_name: "Bea", username: "bea" });
    const workingDir = realpathSync(scope.tempDir());
    const child = scope.track(
      spawnApp("standalone", {
        ...UNSET,
        DATA_DIR: scope.tempDir(),
        WORKING_DIR: workingDir,
        NODE_ID: "my-box",
        TELEGRAM_BOT_TOKEN: fake.token,
        TELEGRAM_API_ROOT: fake.url,
        ALLOWED_USERS: String(bea.id),
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "sk-test",
        PROGRESS_INTERVAL_S: "0",
      }),
    );
    child.endInput(); // Telegram is the chat: the end of stdin is not the end of the standalone
    await child.waitForStderr(/"msg":"standalone serving chat platforms"/, 20_000);
    expect(jsonLines(child).find((line) => line.msg === "standalone serving chat platforms")).toMatchObject({
      nodeId: "my-box",
      platforms: ["telegram (telegram, polling)"],
    });

    const botSays = (afterId: number, pattern: RegExp) =>
      waitFor(
        () =>
          fake
            .transcript(bea.id)
            .find((m) => m.from === "bot" && m.message_id > afterId && pattern.test(m.text ?? "")),
        { timeoutMs: 20_000, message: `a bot message matching ${pattern}: ${fake.renderTranscript(bea.id)}` },
      );
    model.script({ text: "Hello Bea, all is well." });
    const hello = fake.injectText({ from: bea, text: "how is my box?" });
    const answer = await botSays(hello.message?.message_id ?? 0, /^Hello Bea, all is well\.$/);
    expect(answer.replyTo).toBe(hello.message?.message_id);
    expect(model.lastUserText()).toContain("how is my box?");

    const document = fake.injectDocument({
      from: bea,
      data: "quarterly numbers\n",
      filename: "report.txt",
      caption: "summarise this",
    });
    model.fallback = (request) => ({ text: `Got it: ${model.lastUserText(request)}` });
    await botSays(document.message?.message_id ?? 0, /^Got it:/);
    // Saved in the chat's attachments/ in the host's workspace; the message names its path.
    const saved = String(/\[attached: (.+) \(\d/.exec(model.lastUserText())?.[1]);
    expect(saved).toMatch(/\/workspace\/channels\/telegram\/[^/]+\/attachments\/report\.txt$/);
    expect(readFileSync(saved, "utf8")).toBe("quarterly numbers\n");
    const told = model.lastUserText();
    expect(told).toContain("summarise this");
    expect(told).toContain(saved);

    // Telegram is served by polling; the terminal is not the chat.
    expect(fake.callsOf("getUpdates").length).toBeGreaterThan(0);
    expect(child.stdout()).toBe("");
    child.kill("SIGTERM");
    expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
  });
});
