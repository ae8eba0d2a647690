import { openDatabase } from "@phonework/runtime";
import {
  createTestLogger,
  type FakeSpeech,
  startFakeSpeech,
  VOICE_NOTE_OGG,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AdapterAccess } from "../src/access/adapter-access.ts";
import { BUTTONS_MIGRATION } from "../src/chat/button-store.ts";
import type { IncomingMessage } from "../src/chat/chat-types.ts";
import { createConsoleAdapter } from "../src/console/console-adapter.ts";
import { ConsoleFeed } from "../src/console/console-feed.ts";
import { ConsoleClientFrame, MAX_CONSOLE_VOICE_BASE64 } from "../src/console/console-frames.ts";
import { CHAT_INBOX_MIGRATION, CHAT_INBOX_REQUEST_KEY_MIGRATION } from "../src/intake/chat-inbox.ts";
import { ChatLayer } from "../src/intake/chat-layer.ts";
import { createMemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import type { AttachmentRef, ChannelMessage } from "../src/platforms/platform-adapter.ts";
import { SEEN_EVENTS_MIGRATION } from "../src/storage/seen-events.ts";
import { headerSeconds, sniffAudio } from "../src/voice/audio-format.ts";
import { type AudioTools, audioToolsOnPath, NO_AUDIO_TOOLS } from "../src/voice/ffmpeg.ts";
import { openAiSpeechToText, type SttSettings } from "../src/voice/speech-to-text.ts";
import { spokenCommand } from "../src/voice/spoken-command.ts";
import { VoiceInput } from "../src/voice/voice-input.ts";
import { VOICE_NOTES_MIGRATION, VoiceNotes } from "../src/voice/voice-notes.ts";

// Voice notes heard before routing, against one fake speech endpoint over real HTTP (the real openai
// SDK): the limits, the formats, the failures kept for /retry, and the shared intake handing the
// transcript on exactly as if it had been typed.

let stt: FakeSpeech;
beforeAll(async () => {
  stt = await startFakeSpeech({ apiKey: "stt-key" });
});
afterAll(() => stt.close());
beforeEach(() => {
  stt.transcriptions.length = 0;
  stt.accepts = undefined;
});

const logger = createTestLogger().logger;
const settings = (overrides: Partial<SttSettings> = {}): SttSettings => ({
  baseURL: stt.url,
  apiKey: "stt-key",
  model: "whisper-large-v3",
  maxSeconds: 60,
  maxBytes: 100_000,
  timeoutMs: 2_000,
  ...overrides,
});

function voiceInput(options: { stt?: SttSettings | null; tools?: AudioTools; notes?: VoiceNotes } = {}) {
  const chosen = options.stt === null ? undefined : (options.stt ?? settings());
  const notes = options.notes ?? VoiceNotes.inMemory();
  const input = new VoiceInput({
    stt: chosen ? { settings: chosen, endpoint: openAiSpeechToText(chosen) } : undefined,
    notes,
    tools: options.tools ?? NO_AUDIO_TOOLS,
    logger,
  });
  return { input, notes };
}

const voiceRef = (extra: Partial<AttachmentRef> = {}): AttachmentRef => ({
  name: "voice-1.ogg",
  mimeType: "audio/ogg",
  ref: "file-1",
  size: VOICE_NOTE_OGG.length,
  durationS: 2,
  ...extra,
});
const voiceMessage = (extra: Partial<AttachmentRef> = {}): ChannelMessage => ({
  id: "m1",
  channel: { id: "c1", type: "private" },
  sender: { id: "u1", isBot: false },
  text: "",
  attachments: [voiceRef(extra)],
  isMention: true,
});

/** A download that counts its calls. */
function downloads(data: Buffer = VOICE_NOTE_OGG) {
  const calls: string[] = [];
  return {
    calls,
    download: async (ref: AttachmentRef) => {
      calls.push(ref.ref);
      return data;
    },
  };
}

/** The fixture with every page's granule position set to `seconds` of 48 kHz audio (CRC left as it was). */
function withForgedLength(seconds: number): Buffer {
  const data = Buffer.from(VOICE_NOTE_OGG);
  for (let at = data.indexOf("OggS"); at >= 0; at = data.indexOf("OggS", at + 4))
    if (data.readBigInt64LE(at + 6) > 0n) data.writeBigInt64LE(BigInt(seconds * 48_000), at + 6);
  return data;
}

function openVoiceDb() {
  return openDatabase(":memory:", {
    migrations: [
      SEEN_EVENTS_MIGRATION,
      CHAT_INBOX_MIGRATION,
      CHAT_INBOX_REQUEST_KEY_MIGRATION,
      BUTTONS_MIGRATION,
      VOICE_NOTES_MIGRATION,
    ],
  });
}

/** The shared intake over one adapter, voice notes heard through the fake STT; what it hands on is collected. */
async function startVoiceLayer(
  db: ReturnType<typeof openVoiceDb>,
  adapter: ConstructorParameters<typeof ChatLayer>[0]["adapters"][number],
  dm: ConstructorParameters<typeof AdapterAccess>[0]["dm"],
) {
  const delivered: IncomingMessage[] = [];
  const layer = new ChatLayer({
    adapters: [adapter],
    accessFor: () => new AdapterAccess({ admins: [], dm }),
    db,
    now: Date.now,
    seenTtlMs: 86_400_000,
    buttonTtlMs: 86_400_000,
    maxAttachmentBytes: 100_000,
    maxPerChat: 50,
    voice: voiceInput({ notes: new VoiceNotes(db, Date.now) }).input,
    logger,
  });
  await layer.start(async (message) => {
    delivered.push(message);
  });
  return { layer, delivered };
}

describe("what a received audio file is", () => {
  it("reads the container from the bytes and the length from an OGG/Opus or WAV header", () => {
    expect(sniffAudio(VOICE_NOTE_OGG)).toMatchObject({ ext: "ogg", label: "OGG" });
    expect(headerSeconds(VOICE_NOTE_OGG)).toBeCloseTo(1.5, 1);
    const wav = Buffer.alloc(44 + 32_000);
    wav.write("RIFF", 0);
    wav.write("WAVE", 8);
    wav.write("fmt ", 12);
    wav.writeUInt32LE(16, 16);
    wav.writeUInt32LE(32_000, 28); // byte rate: 16 kHz mono 16-bit
    wav.write("data", 36);
    wav.writeUInt32LE(0xffffffff, 40); // streamed: the length is what is there
    expect(sniffAudio(wav).ext).toBe("wav");
    expect(headerSeconds(wav)).toBeCloseTo(1, 3);
    expect(sniffAudio(Buffer.from("#!AMR\n...")).ext).toBeUndefined();
    expect(headerSeconds(Buffer.from("OggS"))).toBeUndefined();
    expect(headerSeconds(withForgedLength(36_000))).toBeGreaterThan(35_000);
  });

  it("reads a spoken leading 'slash' as a command, and touches nothing else", () => {
    expect(spokenCommand("Slash shell, echo hi.")).toBe("/shell echo hi");
    expect(spokenCommand(" /shell echo hi ")).toBe("/shell echo hi");
    expect(spokenCommand("Slash new demo Claude, fix the failing tests.")).toBe(
      "/new demo Claude, fix the failing tests",
    );
    expect(spokenCommand("slash Nodes.")).toBe("/nodes");
    expect(spokenCommand("Show me the disk usage on work-srv.")).toBe("Show me the disk usage on work-srv.");
    expect(spokenCommand("Slashing prices is the plan.")).toBe("Slashing prices is the plan.");
  });
});

describe("a voice note heard", () => {
  it("is sent as it is (name by its real container, the model and key set) and its words come back", async () => {
    const { input } = voiceInput();
    stt.scriptTranscripts({ text: " Slash shell, echo hi. " });
    const { download } = downloads();
    const heard = await input.hear("mem", "mem:u1", voiceMessage({ name: "audio-1.opus" }), download);
    expect(heard).toEqual({ kind: "words", text: "/shell echo hi", echo: "🎤 /shell echo hi" });
    expect(stt.transcriptions).toMatchObject([
      {
        model: "whisper-large-v3",
        fileName: "voice.ogg",
        mimeType: "audio/ogg",
        authorization: "Bearer stt-key",
      },
    ]);
    expect(stt.transcriptions[0]?.file.equals(VOICE_NOTE_OGG)).toBe(true);
  });

  it("over the limits, declared or measured, gets a sentence and nothing is sent or kept", async () => {
    const { input, notes } = voiceInput({ stt: settings({ maxSeconds: 60, maxBytes: 50_000 }) });
    const fetched = downloads();
    // A forged duration or size from the platform: refused before anything is fetched.
    for (const forged of [{ durationS: 1e12 }, { durationS: 61 }, { size: 1e9 }]) {
      const heard = await input.hear("mem", "mem:u1", voiceMessage(forged), fetched.download);
      expect(heard).toMatchObject({ kind: "told", retry: false, text: expect.stringMatching(/limit is/) });
    }
    expect(fetched.calls).toEqual([]);
    // A short declared length, but the file's own header says ten hours.
    const lying = downloads(withForgedLength(36_000));
    const heard = await input.hear("mem", "mem:u1", voiceMessage({ durationS: 1 }), lying.download);
    expect(heard).toMatchObject({
      kind: "told",
      text: expect.stringContaining("36000 s long; the limit is 60 s"),
    });
    // No size declared, more bytes than the cap.
    const big = downloads(Buffer.concat([VOICE_NOTE_OGG, Buffer.alloc(60_000)]));
    expect(await input.hear("mem", "mem:u1", voiceMessage({ size: undefined }), big.download)).toMatchObject({
      text: expect.stringContaining("STT_MAX_BYTES"),
    });
    expect(stt.transcriptions).toEqual([]);
    expect(notes.find("mem", "mem:u1")).toBeUndefined();
  });

  it("with the endpoint down or slow: a sentence, the note kept (audio too) and heard on /retry", async () => {
    const { input, notes } = voiceInput({ stt: settings({ timeoutMs: 300 }) });
    const fetched = downloads();
    stt.scriptTranscripts({ status: 503 });
    expect(await input.hear("mem", "mem:u1", voiceMessage(), fetched.download)).toEqual({
      kind: "told",
      retry: true,
      text: expect.stringMatching(/answered HTTP 503.*send \/retry/),
    });
    stt.scriptTranscripts({ delayMs: 5_000, reply: { text: "too late" } });
    expect(await input.retry("mem", "mem:u1", fetched.download)).toMatchObject({
      text: expect.stringContaining("did not answer in time"),
    });
    expect(notes.find("mem", "mem:u1")?.audio?.equals(VOICE_NOTE_OGG)).toBe(true);
    stt.scriptTranscripts({ text: "Show me the disk usage." });
    expect(await input.retry("mem", "mem:u1", fetched.download)).toMatchObject({
      kind: "words",
      text: "Show me the disk usage.",
    });
    expect(fetched.calls).toEqual(["file-1"]); // fetched once: the kept audio was heard again
    expect(notes.find("mem", "mem:u1")).toBeUndefined();
    expect(await input.retry("mem", "mem:u1", fetched.download)).toMatchObject({
      text: expect.stringContaining("No voice note of yours is waiting"),
    });
  });

  it("a wrong key is named; a kept note survives a new VoiceNotes over the same database", async () => {
    const db = openDatabase(":memory:", { migrations: [VOICE_NOTES_MIGRATION] });
    const { input } = voiceInput({ stt: settings({ apiKey: "wrong" }), notes: new VoiceNotes(db, Date.now) });
    expect(await input.hear("mem", "mem:u1", voiceMessage(), downloads().download)).toMatchObject({
      text: expect.stringContaining("refused the router's key (STT_API_KEY)"),
    });
    expect(new VoiceNotes(db, Date.now).find("mem", "mem:u1")?.message.attachments[0]?.ref).toBe("file-1");
    db.close();
  });

  it("without STT configured: how to turn it on, and the note kept for /retry", async () => {
    const { input, notes } = voiceInput({ stt: null });
    const fetched = downloads();
    expect(await input.hear("mem", "mem:u1", voiceMessage(), fetched.download)).toMatchObject({
      kind: "told",
      text: expect.stringMatching(/STT_BASE_URL.*STT_API_KEY.*STT_MODEL/),
    });
    expect(fetched.calls).toEqual([]);
    expect(notes.find("mem", "mem:u1")).toBeDefined();
  });

  it("a format the endpoint refuses: without ffmpeg, which formats to send", async () => {
    stt.accepts = ["wav"];
    const { input } = voiceInput();
    expect(await input.hear("mem", "mem:u1", voiceMessage(), downloads().download)).toMatchObject({
      text: expect.stringContaining("does not take OGG audio, and the router has no ffmpeg"),
    });
  });

  it.skipIf(!audioToolsOnPath().canConvert)(
    "a format the endpoint refuses: with ffmpeg, converted to WAV (and every later note converted first)",
    async () => {
      stt.accepts = ["wav"];
      const { input } = voiceInput({ tools: audioToolsOnPath() });
      stt.fallback = () => ({ text: "converted" });
      for (let i = 0; i < 2; i++)
        expect(await input.hear("mem", "mem:u1", voiceMessage(), downloads().download)).toMatchObject({
          text: "converted",
        });
      expect(stt.transcriptions.map((r) => r.fileName)).toEqual(["voice.ogg", "voice.wav", "voice.wav"]);
      const wav = stt.transcriptions[1]?.file ?? Buffer.alloc(0);
      expect(sniffAudio(wav).ext).toBe("wav");
      expect(headerSeconds(wav)).toBeCloseTo(1.5, 1);
    },
  );
});

describe("the shared intake with voice notes", () => {
  it("hands the transcript on as the sender's own typed text (no more), shown back once; an audio file with a caption stays a file", async () => {
    const db = openVoiceDb();
    const adapter = createMemoryChatAdapter("mem");
    const files = new Map([["file-1", VOICE_NOTE_OGG]]);
    Object.assign(adapter, { download: async (ref: AttachmentRef) => files.get(ref.ref) ?? Buffer.alloc(0) });
    const { layer, delivered } = await startVoiceLayer(db, adapter, ["mem:u1"]);
    // A stranger's voice note costs nothing: refused before it is fetched or transcribed.
    await adapter.receive({ userId: "u9", chatId: "c9", text: "", attachments: [voiceRef()] });
    await waitFor(() => adapter.textsFor("u9").length === 1);
    expect(adapter.textsFor("u9")[0]).toContain("mem:u9");
    expect(stt.transcriptions).toEqual([]);
    // A transcript that names another node and another user is still only this user's words.
    const smuggled = "@other-node /shell cat ~/.ssh/id_rsa as user mem:admin";
    stt.scriptTranscripts({ text: smuggled }, { status: 500 });
    await adapter.receive({ userId: "u1", chatId: "c1", text: "", attachments: [voiceRef()] });
    await waitFor(() => delivered.length === 1);
    expect(delivered[0]).toEqual({
      platform: "mem",
      messageId: expect.any(String),
      chatId: "mem:c1",
      userId: "mem:u1",
      chatType: "private",
      text: smuggled,
      stored: expect.any(Promise),
      requestKey: expect.any(String),
    });
    expect(adapter.textsFor("u1")).toEqual([`🎤 ${smuggled}`]);
    // STT down: a sentence with a Retry button, nothing handed on; pressing it hears the note again.
    await adapter.receive({ userId: "u1", chatId: "c1", text: "", attachments: [voiceRef()] });
    await waitFor(() => adapter.textsFor("u1").length === 2);
    expect(adapter.textsFor("u1")[1]).toMatch(/could not be transcribed.*\/retry/);
    stt.scriptTranscripts({ text: "Show me the disk usage." });
    await adapter.press("Retry", "u1");
    await waitFor(() => delivered.length === 2);
    expect(delivered[1]?.text).toBe("Show me the disk usage.");
    expect(adapter.textsFor("u1").at(-1)).toBe("🎤 Show me the disk usage.");
    // An audio file with a caption is a file for the host, not a voice note.
    await adapter.receive({ userId: "u1", chatId: "c1", text: "trim this", attachments: [voiceRef()] });
    await waitFor(() => delivered.length === 3);
    expect(delivered[2]).toMatchObject({ text: "trim this", attachments: [{ name: "voice-1.ogg" }] });
    expect(stt.transcriptions).toHaveLength(3);
    await layer.stop();
    db.close();
  });
});

describe("the console's record button", () => {
  it("a recording frame is checked like any input; one heard arrives as the user's text, its audio inside the stored message", async () => {
    const frame = (fields: Record<string, unknown>) =>
      ConsoleClientFrame.safeParse({
        type: "voice",
        mime_type: "audio/webm;codecs=opus",
        data_base64: VOICE_NOTE_OGG.toString("base64"),
        ...fields,
      }).success;
    expect(frame({})).toBe(true);
    expect(frame({ mime_type: "text/html" })).toBe(false);
    expect(frame({ data_base64: "not base64!" })).toBe(false);
    expect(frame({ data_base64: "A".repeat(MAX_CONSOLE_VOICE_BASE64 + 4) })).toBe(false);

    const db = openVoiceDb();
    const feed = new ConsoleFeed({ maxMessages: 20, maxChars: 10_000, maxUsers: 5 });
    const adapter = createConsoleAdapter(feed, Date.now);
    const { layer, delivered } = await startVoiceLayer(db, adapter, "everyone");
    stt.scriptTranscripts({ text: "What is running?" });
    await adapter.receiveVoice("telegram:42", VOICE_NOTE_OGG, "audio/ogg;codecs=opus");
    await waitFor(() => delivered.length === 1);
    expect(delivered[0]).toMatchObject({ userId: "telegram:42", text: "What is running?" });
    expect(delivered[0]?.attachments).toBeUndefined();
    expect(stt.transcriptions.at(-1)?.file.equals(VOICE_NOTE_OGG)).toBe(true);
    expect(feed.messages("telegram:42").map((m) => m.text)).toEqual([
      "🎤 (voice note)",
      "🎤 What is running?",
    ]);
    await layer.stop();
    db.close();
  });
});
