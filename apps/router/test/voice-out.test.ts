import {
  CleanupScope,
  type FakeSpeech,
  type FakeTelegram,
  startFakeSpeech,
  startFakeTelegram,
  VOICE_NOTE_OGG,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingHost, startInProcessRouter } from "./feishu-support.ts";
import { keepForFile } from "./support.ts";

// Voice out through a real router whose chat is Telegram (the adapter's grammY Api against the fake
// Bot API) and the fake speech endpoint (the real openai SDK): with /voice on, a short answer also
// arrives as a voice note after its text; a long one, another user's, or one after /voice off does
// not; the endpoint down leaves the text delivered and the router up. One world for the file.

let fake: FakeTelegram;
let speech: FakeSpeech;
const scope = new CleanupScope();
let alice: ReturnType<FakeTelegram["user"]>;
let bob: ReturnType<FakeTelegram["user"]>;

beforeAll(async () => {
  [fake, speech] = await Promise.all([startFakeTelegram(), startFakeSpeech()]);
  scope.add(() => fake.close());
  scope.add(() => speech.close());
  alice = fake.user({ first_name: "Alice", username: "alice" });
  bob = fake.user({ first_name: "Bob", username: "bob" });
  const { router } = await startInProcessRouter({
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.url,
    ALLOWED_USERS: `${alice.id},${bob.id}`,
    // TTS_BASE_URL defaults to the STT endpoint.
    STT_BASE_URL: speech.url,
  });
  await recordingHost(router, "home-pc");
  keepForFile(scope);
});
afterAll(() => scope.run());

const voices = (chatId: number) =>
  fake.sentFiles().filter((f) => f.method === "sendVoice" && f.chat_id === chatId);

/** Sends `text` as `user` and waits for the bot's message matching `pattern` after it. */
async function ask(user: typeof alice, text: string, pattern: RegExp) {
  const sent = fake.injectText({ from: user, text });
  const after = sent.message?.message_id ?? 0;
  return waitFor(
    () =>
      fake
        .transcript(user.id)
        .find((m) => m.from === "bot" && m.message_id > after && pattern.test(m.text ?? "")),
    { message: `a bot message matching ${pattern}: ${fake.renderTranscript(user.id)}` },
  );
}

describe("/voice on: short answers also as speech", () => {
  it("a short answer gets one voice note after its text; long answers, /voice off and other users get none", async () => {
    await ask(alice, "/voice", /Spoken answers: off/);
    await ask(alice, "/voice on", /also come as speech/);
    const text = await ask(alice, "hello there", /^home-pc: hello there$/);
    await waitFor(() => voices(alice.id).length === 1, { message: "a voice note to Alice" });
    const [voice] = voices(alice.id);
    expect(voice?.data.equals(VOICE_NOTE_OGG)).toBe(true);
    expect(voice?.message_id).toBeGreaterThan(text.message_id);
    expect(speech.speech).toMatchObject([
      { input: "home-pc: hello there", model: "tts-1", voice: "alloy", response_format: "opus" },
    ]);

    // Bob never turned it on (and Alice's choice is hers alone); Alice's long answer stays text.
    await ask(bob, "from bob", /^home-pc: from bob$/);
    await ask(alice, `long ${"word ".repeat(150)}`, /^home-pc: long/);
    await ask(alice, "/voice off", /text only/);
    await ask(alice, "quiet now", /^home-pc: quiet now$/);
    await ask(alice, "/voice on", /also come as speech/);
    await ask(alice, "marker", /^home-pc: marker$/);
    await waitFor(() => voices(alice.id).length === 2, { message: "the marker's voice note" });
    expect(speech.speech.map((request) => request.input)).toEqual([
      "home-pc: hello there",
      "home-pc: marker",
    ]);
    expect(voices(bob.id)).toEqual([]);
  });

  it("the speech endpoint down: the text is delivered, nothing else, and the router keeps answering", async () => {
    speech.scriptSpeech({ status: 503 });
    const before = speech.speech.length;
    await ask(alice, "while down", /^home-pc: while down$/);
    await waitFor(() => speech.speech.length === before + 1, { message: "the speech request" });
    // After a failure the endpoint is left alone for a while: no second request, no retry.
    await ask(alice, "right after", /^home-pc: right after$/);
    await ask(alice, "/voice", /Spoken answers: on/);
    expect(speech.speech.length).toBe(before + 1);
    expect(voices(alice.id)).toHaveLength(2);
  });
});
