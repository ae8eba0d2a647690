import {
  type FakeFeishu,
  type FakeSlack,
  type FakeSpeech,
  messageEvent,
  startFakeFeishu,
  startFakeOpenAI,
  startFakeSlack,
  startFakeSpeech,
  VOICE_NOTE_OGG,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  sentTexts,
  startFeishuRouter,
  startInProcessRouter,
  recordingHost as startRecordingHost,
} from "./feishu-support.ts";

// Voice notes on Feishu and Slack through a real router (the real Lark and Slack SDKs against their
// fakes) and an in-process host recording what reaches it: heard and handed on as text, shown back
// once; STT down keeps the note for /retry; a note over the limits, or whose file link points away
// from the platform, gets a sentence and nothing is sent anywhere.

let stt: FakeSpeech;
beforeAll(async () => {
  stt = await startFakeSpeech();
});
afterAll(() => stt.close());

const sttKeys = () => ({ STT_BASE_URL: stt.url, STT_MAX_SECONDS: 60 });

/** The voice-note fixture with its OGG header claiming `seconds` (the CRC left stale). */
function claimingSeconds(seconds: number): Buffer {
  const data = Buffer.from(VOICE_NOTE_OGG);
  for (let at = data.indexOf("OggS"); at >= 0; at = data.indexOf("OggS", at + 4))
    if (data.readBigInt64LE(at + 6) > 0n) data.writeBigInt64LE(BigInt(seconds * 48_000), at + 6);
  return data;
}

describe("Feishu voice messages", () => {
  let fake: FakeFeishu;
  beforeAll(async () => {
    fake = await startFakeFeishu();
  });
  afterAll(() => fake.close());

  it("are heard and answered as text; STT down: a sentence, /retry hears it; a file longer than its header allows: refused unsent", async () => {
    const { router } = await startFeishuRouter(fake, sttKeys());
    const { received } = await startRecordingHost(router, "home-pc");
    const chatId = "oc_voice";
    const speak = (data: Buffer = VOICE_NOTE_OGG) =>
      fake.pushEvent(
        messageEvent({
          openId: "ou_alice",
          chatId,
          chatType: "p2p",
          messageType: "audio",
          resourceKey: fake.userFile(data),
        }),
      );
    const said = (pattern: RegExp) =>
      waitFor(() => sentTexts(fake, chatId).find((text) => pattern.test(text)), {
        message: `a bot message matching ${pattern}: ${JSON.stringify(sentTexts(fake, chatId))}`,
      });

    stt.scriptTranscripts({ text: "Slash nodes." }, { text: "Show me the disk usage." });
    await speak();
    await said(/nodes|home-pc/); // /nodes is the router's own command: answered, nothing forwarded
    await speak();
    await waitFor(() => received.includes("Show me the disk usage."));
    await said(/^home-pc: Show me the disk usage\.$/);
    expect(sentTexts(fake, chatId).filter((text) => text.startsWith("🎤"))).toEqual([
      "🎤 /nodes",
      "🎤 Show me the disk usage.",
    ]);
    expect(stt.transcriptions.at(-1)).toMatchObject({ fileName: "voice.ogg", model: "whisper-1" });

    stt.scriptTranscripts({ status: 502 });
    await speak();
    await said(/could not be transcribed.*\/retry/);
    stt.scriptTranscripts({ text: "What changed today?" });
    await fake.pushEvent(messageEvent({ openId: "ou_alice", chatId, chatType: "p2p", text: "/retry" }));
    await waitFor(() => received.includes("What changed today?"));

    const heard = stt.transcriptions.length;
    await speak(claimingSeconds(7_200));
    await said(/7200 s long; the limit is 60 s/);
    expect(stt.transcriptions).toHaveLength(heard);
    expect(received).toEqual(["Show me the disk usage.", "What changed today?"]);
  });
});

describe("a spoken request routed", () => {
  it("the routing step reads the transcript: 'show me the disk usage on work-srv' reaches work-srv", async () => {
    const feishu = await startFakeFeishu();
    const routingModel = await startFakeOpenAI();
    try {
      const { router } = await startFeishuRouter(feishu, {
        ...sttKeys(),
        ROUTER_LLM_BASE_URL: routingModel.url,
        ROUTER_LLM_API_KEY: "sk-routing",
      });
      const home = await startRecordingHost(router, "home-pc");
      const work = await startRecordingHost(router, "work-srv");
      routingModel.script((request) => {
        const asked = JSON.stringify(request.messages);
        return asked.includes("Show me the disk usage on work-srv.")
          ? { toolCalls: [{ name: "route_to", arguments: { node_id: "work-srv" } }] }
          : { text: "no idea" };
      });
      stt.scriptTranscripts({ text: "Show me the disk usage on work-srv." });
      await feishu.pushEvent(
        messageEvent({
          openId: "ou_alice",
          chatId: "oc_route",
          chatType: "p2p",
          messageType: "audio",
          resourceKey: feishu.userFile(VOICE_NOTE_OGG),
        }),
      );
      await waitFor(() => work.received.includes("Show me the disk usage on work-srv."));
      expect(home.received).toEqual([]);
      expect(routingModel.requests).toHaveLength(1);
    } finally {
      await routingModel.close();
      await feishu.close();
    }
  });
});

describe("Slack voice clips", () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(() => fake.close());

  it("are heard and handed on as text; a clip whose link points off Slack is never fetched with the token nor sent", async () => {
    const ann = fake.user({ name: "ann" });
    const { router } = await startInProcessRouter({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
      ALLOWED_USERS: `slack:${ann.id}`,
      ...sttKeys(),
    });
    const { received } = await startRecordingHost(router, "home-pc");
    const dm = fake.dm(ann);
    const clip = (url?: string) => {
      const shared = fake.shareFile({
        name: "audio_message.ogg",
        data: VOICE_NOTE_OGG,
        mimetype: "audio/ogg",
      });
      const files = [url ? { ...shared, url_private_download: url, url_private: url } : shared];
      return fake.sendMessage({ user: ann.id, text: "", subtype: "file_share", files });
    };

    stt.scriptTranscripts({ text: "Restart the build on home-pc." });
    clip();
    await waitFor(() => received.includes("Restart the build on home-pc."));
    await fake.waitForBot(dm, /^🎤 Restart the build on home-pc\.$/);
    await fake.waitForBot(dm, /^home-pc: Restart the build on home-pc\.$/);

    // The link names another server (here: the speech endpoint's own): not fetched, nothing sent.
    const heard = stt.transcriptions.length;
    clip(`${stt.url}/audio/transcriptions`);
    await fake.waitForBot(dm, /could not be fetched from the chat/);
    expect(stt.transcriptions).toHaveLength(heard);
    expect(received).toEqual(["Restart the build on home-pc."]);
  });
});
