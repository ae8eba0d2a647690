import { createTestLogger, type FakeSpeech, startFakeSpeech } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatAddress, OutgoingFile } from "../src/chat/chat-types.ts";
import { NO_SPEECH_ENDPOINT, VOICE_USAGE, voiceCommand } from "../src/commands/voice-command.ts";
import { UserStateStore } from "../src/users/user-state-store.ts";
import { spokenText } from "../src/voice/spoken-text.ts";
import { openAiTextToSpeech } from "../src/voice/text-to-speech.ts";
import { VoiceOut } from "../src/voice/voice-out.ts";

// Voice out's parts without a router: what of an answer is spoken, /voice only ever setting the
// asker's own choice, and VoiceOut against the fake speech endpoint through the real openai SDK
// (a huge answer never synthesised, the endpoint down: logged once, no body, left alone).

describe("spokenText", () => {
  it("takes out code blocks and markdown, keeps the words", () => {
    expect(
      spokenText("**Done.** The disk is `80%` full.\n\n```sh\ndf -h\n```\nSee [the docs](https://x.y).", 600),
    ).toBe("Done. The disk is 80% full.\nSee the docs.");
    expect(spokenText("# Status\n- _web_: up\n- db: down\n> note", 600)).toBe(
      "Status\nweb: up\ndb: down\nnote",
    );
    expect(spokenText("plain answer", 600)).toBe("plain answer");
  });

  it("skips answers that are long, mostly code, or nothing but code", () => {
    expect(spokenText("word ".repeat(200), 600)).toBeUndefined();
    expect(spokenText(`Here:\n\`\`\`ts\n${"const x = 1;\n".repeat(10)}\`\`\``, 600)).toBeUndefined();
    expect(spokenText("```\nls\n```", 600)).toBeUndefined();
    expect(spokenText("   ", 600)).toBeUndefined();
  });

  it("a 1 MB answer is refused before any pattern runs", () => {
    const started = performance.now();
    expect(spokenText("a*".repeat(500_000), 600)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe("/voice", () => {
  const asker = (userId: string) => ({ userId, platform: "telegram", chatId: userId });
  const configured = { configured: true };

  it("sets the asker's own choice only; any other argument is the usage", () => {
    const users = UserStateStore.inMemory();
    expect(voiceCommand(asker("telegram:1"), "on", users, configured).text).toMatch(/also come as speech/);
    expect(users.voiceOut("telegram:1")).toBe(true);
    expect(users.voiceOut("telegram:2")).toBe(false);
    expect(voiceCommand(asker("telegram:1"), "on telegram:2", users, configured).text).toBe(VOICE_USAGE);
    expect(voiceCommand(asker("telegram:2"), "telegram:1 off", users, configured).text).toBe(VOICE_USAGE);
    expect([users.voiceOut("telegram:1"), users.voiceOut("telegram:2")]).toEqual([true, false]);
    expect(voiceCommand(asker("telegram:1"), "off", users, configured).text).toMatch(/text only/);
    expect(users.voiceOut("telegram:1")).toBe(false);
  });

  it("without a speech endpoint: one sentence naming the key, and nothing stored", () => {
    const users = UserStateStore.inMemory();
    expect(voiceCommand(asker("telegram:1"), "on", users, { configured: false }).text).toBe(
      NO_SPEECH_ENDPOINT,
    );
    expect(voiceCommand(asker("telegram:1"), "on", users, undefined).text).toMatch(/TTS_BASE_URL/);
    expect(users.voiceOut("telegram:1")).toBe(false);
  });
});

describe("VoiceOut against the fake speech endpoint", () => {
  let speech: FakeSpeech;
  beforeAll(async () => {
    speech = await startFakeSpeech({ apiKey: "tts-key" });
  });
  afterAll(() => speech.close());

  function voiceOut() {
    const settings = {
      baseURL: speech.url,
      apiKey: "tts-key",
      model: "tts-1",
      voice: "nova",
      maxChars: 600,
      timeoutMs: 5_000,
    };
    const sent: { to: ChatAddress; file: OutgoingFile }[] = [];
    const userState = UserStateStore.inMemory();
    userState.setVoiceOut("telegram:1", true);
    const { logger, lines } = createTestLogger("warn");
    let now = 0;
    const out = new VoiceOut({
      tts: { settings, endpoint: openAiTextToSpeech(settings) },
      chat: {
        sendFile: async (to, file) => {
          sent.push({ to, file });
          return { messageId: "1" };
        },
      },
      userState,
      logger,
      now: () => now,
    });
    return { out, sent, lines, later: (ms: number) => (now += ms) };
  }
  const to = { platform: "telegram", userId: "telegram:1", chatId: "telegram:1" };

  it("speaks a short answer as a voice file with the key; a 1 MB answer and a user with voice off: no request", async () => {
    const { out, sent } = voiceOut();
    const before = speech.speech.length;
    await out.speak(to, "x".repeat(1024 * 1024));
    await out.speak({ ...to, userId: "telegram:2" }, "short");
    expect(speech.speech.length).toBe(before);
    await out.speak(to, "All **green**.");
    expect(speech.speech.at(-1)).toMatchObject({
      input: "All green.",
      voice: "nova",
      response_format: "opus",
      authorization: "Bearer tts-key",
    });
    expect(sent.map((s) => [s.file.voice, s.file.mimeType, s.file.data.length > 0])).toEqual([
      [true, "audio/ogg", true],
    ]);
  });

  it("the endpoint failing: logged at warn without the text, no throw, left alone for a minute", async () => {
    const { out, sent, lines, later } = voiceOut();
    speech.scriptSpeech({ status: 500 });
    const before = speech.speech.length;
    await out.speak(to, "secret words");
    await out.speak(to, "secret words again");
    expect(speech.speech.length).toBe(before + 1);
    expect(sent).toEqual([]);
    const logged = lines()
      .map((line) => JSON.stringify(line))
      .join("\n");
    expect(logged).toMatch(/speech synthesis failed/);
    expect(logged).not.toMatch(/secret words/);
    later(61_000);
    await out.speak(to, "back");
    expect(sent).toHaveLength(1);
  });
});
