import { startFakeOpenAI, startFakeSpeech, VOICE_NOTE_OGG } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { fakeTelegram, scope, startHost, startRouter, telegramChat } from "./telegram-e2e-support.ts";

// Voice notes from Telegram through real `phonework router` and `phonework host` processes: the fake
// Bot API serves an OGG/Opus voice note, the router sends it to the fake speech endpoint (STT_*),
// and the transcript is routed and answered by the host's assistant (a fake model) like typed text.

describe("Telegram voice notes", () => {
  it("are heard, shown back once and answered; a spoken /shell runs; STT down keeps the note for /retry; an over-long note is refused unsent", {
    timeout: 60_000,
  }, async () => {
    const fake = await fakeTelegram();
    const model = await startFakeOpenAI();
    const stt = await startFakeSpeech({ apiKey: "stt-key" });
    scope.add(() => model.close());
    scope.add(() => stt.close());
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    const router = await startRouter(fake, {
      ALLOWED_USERS: String(alice.id),
      STT_BASE_URL: stt.url,
      STT_API_KEY: "stt-key",
      STT_MODEL: "whisper-large-v3",
      STT_MAX_SECONDS: "300",
      STT_TIMEOUT_S: "5",
    });
    await startHost(router, "work-srv", {
      SERVES_USERS: String(alice.id),
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
    });
    const chat = telegramChat(fake, alice);
    const speak = (duration = 2) =>
      fake.injectVoice({ from: alice, data: VOICE_NOTE_OGG, duration }).message?.message_id ?? 0;

    // Heard: the transcript is shown back once, then the assistant answers those words.
    stt.scriptTranscripts({ text: "Show me the disk usage on work-srv." });
    const said = speak();
    const answer = await chat.waitForBot(/^fake-model: .*Show me the disk usage on work-srv\./, said);
    const mine = chat.botMessages().filter((m) => m.message_id > said);
    expect(mine.filter((m) => m.text?.startsWith("🎤"))).toEqual([
      expect.objectContaining({ text: "🎤 Show me the disk usage on work-srv.", replyTo: said }),
    ]);
    expect(mine[0]?.text).toMatch(/^🎤/); // before the answer
    expect(answer.replyTo).toBe(said);
    expect(model.lastUserText()).toContain("Show me the disk usage on work-srv.");
    expect(stt.transcriptions).toMatchObject([
      { model: "whisper-large-v3", fileName: "voice.ogg", authorization: "Bearer stt-key" },
    ]);
    expect(stt.transcriptions[0]?.file.equals(VOICE_NOTE_OGG)).toBe(true);

    // A spoken command is the command.
    stt.scriptTranscripts({ text: "Slash shell, echo hi-from-voice." });
    const command = speak();
    await chat.waitForBot(/^🎤 \/shell echo hi-from-voice$/, command);
    await chat.waitForBot(/^hi-from-voice$/m, command);

    // STT down: a sentence with a Retry button, nothing reaches the host; /retry hears it again.
    const modelCalls = model.requests.length;
    stt.scriptTranscripts({ status: 503 });
    const failed = speak();
    const sorry = await chat.waitForBot(/could not be transcribed.*send \/retry/, failed);
    expect(sorry.keyboard?.flat().map((b) => b.text)).toEqual(["Retry"]);
    stt.scriptTranscripts({ text: "What is running on work-srv?" });
    const retry = chat.send("/retry").message?.message_id ?? 0;
    await chat.waitForBot(/^🎤 What is running on work-srv\?$/, retry);
    await chat.waitForBot(/^fake-model: .*What is running on work-srv\?/, retry);
    expect(model.requests.length).toBeGreaterThan(modelCalls);

    // Over STT_MAX_SECONDS (a forged duration too): one sentence, nothing transcribed or sent.
    const heardSoFar = stt.transcriptions.length;
    const asked = model.requests.length;
    const long = speak(1_000_000_000);
    await chat.waitForBot(/limit is 300 s \(STT_MAX_SECONDS\)\. Nothing was sent/, long);
    expect(chat.botMessages().filter((m) => m.message_id > long)).toHaveLength(1);
    expect(stt.transcriptions).toHaveLength(heardSoFar);
    expect(model.requests).toHaveLength(asked);
  });
});
