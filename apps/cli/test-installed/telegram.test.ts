import { join } from "node:path";
import {
  decodeDataUrl,
  imageFixture,
  imageHeader,
  startFakeOpenAI,
  startFakeSpeech,
  startTunnel,
  VOICE_NOTE_OGG,
  waitFor,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import {
  fakeTelegram,
  scope,
  startHost,
  startRouter,
  telegramChat,
  telegramEnv,
  telegramWorld,
  walCheckpointed,
} from "./support.ts";

// Telegram through the installed router: its bundled grammY against the fake Bot API
// (TELEGRAM_API_ROOT), by long polling and by webhook, a command answered by an installed host.

const HOOK_SECRET = "installed_hook-Secret-0123";

describe("Telegram, installed", () => {
  it("polling: /start says what to try, and a /shell command is answered in the chat as a <pre> block; both databases are checkpointed", async () => {
    const hostDir = scope.tempDir();
    const { fake, chat, router, host } = await telegramWorld({ host: { DATA_DIR: hostDir } });
    expect((await chat.say("/start", /Welcome to PhoneWork/)).text).toContain("/help");
    const answer = await chat.say("/shell echo polled-$((6*7))", /polled-42/);
    expect(answer.text).toContain("polled-42");
    const sent = fake.callsOf("sendMessage").find((call) => String(call.params.text).includes("polled-42"));
    expect(sent?.params).toMatchObject({
      parse_mode: "HTML",
      text: expect.stringContaining("<pre>polled-42</pre>"),
    });
    expect(fake.callsOf("getUpdates").length).toBeGreaterThan(0);
    expect(fake.webhook()).toBeUndefined();
    await walCheckpointed(router.child, join(router.dataDir, "router", "router.db"));
    await walCheckpointed(host, join(hostDir, "host", "box", "state.db"));
  });

  it("a photo with a caption reaches the model scaled to 1,568 px: sharp's native part loads from the package", async () => {
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const { fake, alice } = await telegramWorld({
      host: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: model.url, OPENAI_VISION: "on" },
    });
    model.script({ text: "A blue wall." });
    fake.injectPhoto({ from: alice, data: imageFixture("large-photo.jpg"), caption: "what is this?" });
    await waitFor(
      () => fake.transcript(alice.id).find((m) => m.from === "bot" && m.text === "A blue wall."),
      {
        timeoutMs: 30_000,
        message: "the answer to the photo",
      },
    );
    const [url] = model.imageUrls(model.requests.at(-1));
    expect(imageHeader(decodeDataUrl(url ?? "").data)).toEqual({ format: "jpeg", width: 1568, height: 1176 });
    expect(model.lastUserText(model.requests.at(-1))).toMatch(/^what is this\?\n\[attached: /);
  });

  it("a voice note is transcribed by the installed router and a spoken /shell runs on the host", async () => {
    const stt = await startFakeSpeech({ apiKey: "stt-key" });
    scope.add(() => stt.close());
    const { fake, alice } = await telegramWorld({
      router: { STT_BASE_URL: stt.url, STT_API_KEY: "stt-key", STT_TIMEOUT_S: "10" },
    });
    stt.scriptTranscripts({ text: "Slash shell, echo heard-from-voice." });
    fake.injectVoice({ from: alice, data: VOICE_NOTE_OGG, duration: 2 });
    const bot = (pattern: RegExp) => () =>
      fake.transcript(alice.id).find((m) => m.from === "bot" && pattern.test(m.text ?? ""));
    await waitFor(bot(/^🎤 \/shell echo heard-from-voice$/), {
      timeoutMs: 30_000,
      message: "the transcript",
    });
    await waitFor(bot(/^heard-from-voice$/m), { timeoutMs: 30_000, message: "the spoken command's answer" });
    expect(stt.transcriptions).toHaveLength(1);
    expect(stt.transcriptions[0]?.file.equals(VOICE_NOTE_OGG)).toBe(true);
  });

  it("webhook: setWebhook with the secret at start, and an update posted there is answered", async () => {
    const fake = await fakeTelegram();
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    // The public address Telegram posts to: known before the router runs, forwarding to it after.
    const tunnel = await startTunnel();
    scope.add(tunnel.close);
    const hook = `${tunnel.url}/webhook/telegram`;
    const router = await startRouter({
      ...telegramEnv(fake, alice),
      TELEGRAM_MODE: "webhook",
      TELEGRAM_WEBHOOK_SECRET: HOOK_SECRET,
      TELEGRAM_WEBHOOK_URL: hook,
    });
    tunnel.target(Number(new URL(router.url).port));
    expect(fake.webhook()).toEqual({ url: hook, secretToken: HOOK_SECRET, maxConnections: 40 });
    await startHost(router, "box", { SERVES_USERS: String(alice.id) });

    await telegramChat(fake, alice).say("/shell echo hooked", /hooked/);
    expect(fake.webhookAttempts().map((attempt) => attempt.status)).toEqual([200]);
    expect(fake.callsOf("getUpdates")).toEqual([]);
  });
});
