import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { makeTempDir } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { withPlatformRetry } from "../src/chat/send-retry.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { asPlatformCall, FeishuError } from "../src/platforms/feishu/feishu-error.ts";
import { parseReceiveEvent } from "../src/platforms/feishu/incoming-event.ts";
import { sdkLogEntry } from "../src/platforms/feishu/lark-client.ts";
import { feishuWebhookVerifier } from "../src/platforms/feishu/webhook-verifier.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";

function encrypt(json: string, key: string): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", createHash("sha256").update(key).digest(), iv);
  return Buffer.concat([iv, cipher.update(json), cipher.final()]).toString("base64");
}

describe("Feishu webhook verification", () => {
  const verifier = feishuWebhookVerifier({ encryptKey: "enc-key", verificationToken: "vtoken" });
  const event = {
    schema: "2.0",
    header: { event_id: "e1", token: "vtoken", event_type: "im.message.receive_v1" },
    event: { message: { message_id: "om_1" } },
  };
  const encrypted = (body: object, key = "enc-key") =>
    JSON.stringify({ encrypt: encrypt(JSON.stringify(body), key) });
  const signed = (raw: string, key = "enc-key") => {
    const timestamp = "1700000000";
    const nonce = "n0nce";
    const signature = createHash("sha256")
      .update(timestamp + nonce + key + raw)
      .digest("hex");
    return {
      "x-lark-request-timestamp": timestamp,
      "x-lark-request-nonce": nonce,
      "x-lark-signature": signature,
    };
  };
  const verify = (headers: Record<string, string>, rawBody: string) => verifier.verify({ headers, rawBody });

  it("decrypts a correctly signed event with the right token, with its signed time and redelivery keys", () => {
    const raw = encrypted(event);
    expect(verify(signed(raw), raw)).toEqual({
      kind: "event",
      event,
      signedAtMs: 1_700_000_000_000,
      ids: ["feishu:e:e1", "feishu:m:om_1"],
    });
  });

  it("checks the signature over the raw bytes, not re-serialized JSON", () => {
    const raw = `{ "encrypt" :  "${encrypt(JSON.stringify(event), "enc-key")}" }`; // odd spacing survives
    expect(verify(signed(raw), raw).kind).toBe("event");
    const tampered = raw.replace("{ ", "{");
    expect(verify(signed(raw), tampered)).toMatchObject({
      kind: "rejected",
      status: 401,
      reason: "bad signature",
    });
  });

  it("rejects a wrong token, a body it cannot decrypt, a plain body and missing signature headers", () => {
    const wrongToken = encrypted({ ...event, header: { ...event.header, token: "nope" } });
    expect(verify(signed(wrongToken), wrongToken)).toMatchObject({
      kind: "rejected",
      status: 401,
      reason: "verification token mismatch",
    });
    const otherKey = encrypted(event, "other-key");
    expect(verify(signed(otherKey), otherKey)).toMatchObject({ kind: "rejected", status: 400 });
    const plain = JSON.stringify(event);
    expect(verify(signed(plain), plain)).toMatchObject({ kind: "rejected", status: 400 });
    expect(verify({}, "not json")).toMatchObject({ kind: "rejected", status: 400 });
    const raw = encrypted(event);
    const { "x-lark-request-timestamp": _, ...noTimestamp } = signed(raw);
    expect(verify(noTimestamp, raw)).toMatchObject({ kind: "rejected", status: 401 });
    expect(verify({}, raw)).toMatchObject({ kind: "rejected", status: 401 }); // unsigned, not a challenge
  });

  it("answers the url_verification challenge, which Feishu sends unsigned, only with the token", () => {
    const challenge = { type: "url_verification", challenge: "c-1", token: "vtoken" };
    const answer = { kind: "handshake", response: { status: 200, body: { challenge: "c-1" } } };
    expect(verify({}, encrypted(challenge))).toEqual(answer);
    const raw = encrypted(challenge);
    expect(verify(signed(raw), raw)).toEqual(answer);
    const refused = {
      kind: "rejected",
      status: 401,
      reason: "unsigned request that is not this app's url_verification",
    };
    expect(verify({}, encrypted({ ...challenge, token: "vtoken2" }))).toEqual(refused);
    expect(verify({}, encrypted(challenge, "other-key"))).toEqual(refused); // same answer: no decryption oracle
    expect(verify({}, JSON.stringify(challenge))).toMatchObject({ kind: "rejected", status: 400 });
  });
});

describe("receive events", () => {
  const base = (message: Record<string, unknown>) => ({
    sender: { sender_id: { open_id: "ou_user" }, sender_type: "user" },
    message: {
      message_id: "om_1",
      chat_id: "oc_1",
      chat_type: "p2p",
      message_type: "text",
      content: '{"text":"hi"}',
      ...message,
    },
  });

  it("reads private text and rich-text (post) messages, with Feishu's own ids", () => {
    expect(parseReceiveEvent({ ...base({}), event_id: "ev_1" }, "ou_bot")).toEqual({
      kind: "message",
      message: {
        id: "om_1",
        channel: { id: "oc_1", type: "private" },
        sender: { id: "ou_user", isBot: false },
        text: "hi",
        attachments: [],
        isMention: true,
        dedupeKeys: ["e:ev_1"],
      },
    });
    const post = base({
      message_type: "post",
      content: JSON.stringify({
        zh_cn: {
          title: "T",
          content: [
            [
              { tag: "text", text: "see " },
              { tag: "a", text: "docs", href: "https://x" },
            ],
          ],
        },
      }),
    });
    expect(parseReceiveEvent(post, "ou_bot")).toMatchObject({ message: { text: "T\nsee docs (https://x)" } });
  });

  it("ignores what a bot sent, and an event without a sender or message id", () => {
    const fromBot = { ...base({}), sender: { sender_id: { open_id: "ou_other_bot" }, sender_type: "app" } };
    expect(parseReceiveEvent(fromBot, "ou_bot")).toEqual({ kind: "ignore", reason: "sent by a bot" });
    expect(parseReceiveEvent({ message: base({}).message }, "ou_bot")).toEqual({
      kind: "ignore",
      reason: "incomplete event",
    });
  });

  // The shared layer answers a group message only when it is a mention (feishu.test.ts end to end).
  it("in groups marks whether the bot is @mentioned, without the mention in the text", () => {
    const plain = base({ chat_type: "group" });
    expect(parseReceiveEvent(plain, "ou_bot")).toMatchObject({
      kind: "message",
      message: { channel: { type: "group" }, isMention: false },
    });
    const mentioned = base({
      chat_type: "group",
      content: '{"text":"@_user_1 /nodes"}',
      mentions: [{ key: "@_user_1", id: { open_id: "ou_bot" }, name: "PhoneWork" }],
    });
    expect(parseReceiveEvent(mentioned, "ou_bot")).toMatchObject({
      kind: "message",
      message: { text: "/nodes", channel: { type: "group" }, isMention: true },
    });
    const other = base({
      chat_type: "group",
      mentions: [{ key: "@_user_1", id: { open_id: "ou_someone" } }],
    });
    expect(parseReceiveEvent(other, "ou_bot")).toMatchObject({
      kind: "message",
      message: { isMention: false },
    });
  });

  it("names a message type it cannot read", () => {
    expect(parseReceiveEvent(base({ message_type: "sticker", content: "{}" }), "ou_bot")).toMatchObject({
      kind: "message",
      message: { unsupported: "sticker" },
    });
  });
});

describe("seen events", () => {
  it("recognises a redelivery by event id or message id until the TTL passes", () => {
    let now = 0;
    const seen = SeenEvents.inMemory(1000, () => now);
    expect(seen.checkAndRemember(["e:1", "m:1"])).toBe(false);
    expect(seen.checkAndRemember(["e:2", "m:1"])).toBe(true); // same message, new event id
    now = 5000;
    expect(seen.checkAndRemember(["e:1", "m:1"])).toBe(false);
  });

  it("keeps one row per id in router.db, across a reopen, and prunes rows past the TTL", () => {
    const dir = makeTempDir();
    const path = routerDatabasePath(dir.path);
    let now = 1_000_000;
    try {
      const db = openRouterDatabase(path);
      const seen = new SeenEvents(db, 60_000, () => now);
      expect(seen.checkAndRemember(["e:1", "m:1"])).toBe(false);
      expect(seen.checkAndRemember(["e:1"])).toBe(true);
      db.close();
      const reopened = openRouterDatabase(path);
      const again = new SeenEvents(reopened, 60_000, () => now);
      expect(again.checkAndRemember(["m:1"])).toBe(true);
      const rows = () => (reopened.prepare("SELECT count(*) AS n FROM seen_events").get() as { n: number }).n;
      expect(rows()).toBe(2);
      now += 60_000;
      expect(again.prune()).toBe(2);
      expect(rows()).toBe(0);
      reopened.close();
    } finally {
      dir.remove();
    }
  });
});

describe("Feishu errors under the shared send retry", () => {
  it("retries rate limits and 5xx, honouring the reset header, and gives up on other errors", async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    const policy = { attempts: 5, baseMs: 100, maxMs: 10_000, maxRetryAfterMs: 60_000, sleep };
    let calls = 0;
    const result = await withPlatformRetry(
      () =>
        asPlatformCall(async () => {
          calls++;
          if (calls === 1) throw new FeishuError("rate", 429, undefined, 3000);
          if (calls === 2) throw new FeishuError("busy", 200, 99991400, undefined);
          if (calls === 3) throw new FeishuError("down", 503, undefined, undefined);
          return "sent";
        }),
      policy,
    );
    expect(result).toBe("sent");
    expect(waits).toEqual([3000, 200, 400]);
    let refused = 0;
    await expect(
      withPlatformRetry(
        () =>
          asPlatformCall(async () => {
            refused++;
            throw new FeishuError("bad card", 400, 230099, undefined);
          }),
        policy,
      ),
    ).rejects.toMatchObject({ kind: "permanent", details: { code: 230099, status: 400 } });
    expect(refused).toBe(1);
  });

  it("does not wait out a reset longer than the policy allows", async () => {
    const waits: number[] = [];
    await expect(
      withPlatformRetry(
        () => asPlatformCall(() => Promise.reject(new FeishuError("rate", 429, undefined, 600_000))),
        {
          attempts: 5,
          baseMs: 1,
          maxMs: 1,
          maxRetryAfterMs: 60_000,
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      ),
    ).rejects.toMatchObject({ kind: "rate_limited", details: { retryAfterMs: 600_000 } });
    expect(waits).toEqual([]);
  });
});

describe("what the Feishu SDK logs", () => {
  const card = JSON.stringify({ receive_id: "oc_1", content: '{"text":"SECRET output"}' });

  it("keeps its words and a failure's status, code, msg and log_id; drops the request and raw answers", () => {
    // The SDK's own digest of an AxiosError, as it logs a failed call.
    const digest = [
      {
        message: "Request failed with status code 400",
        config: {
          data: card,
          url: "https://open.feishu.cn/open-apis/im/v1/messages?receive_id_type=chat_id",
          method: "post",
        },
        request: { path: "/open-apis/im/v1/messages?receive_id_type=chat_id", method: "POST" },
        response: {
          data: {
            code: 230001,
            msg: "invalid param",
            error: { log_id: "L1", field_violations: [{ value: card }] },
          },
          status: 400,
        },
      },
      { code: 230001, msg: "invalid param", log_id: "L1", field_violations: [{ value: card }] },
    ];
    expect(sdkLogEntry([digest])).toEqual({
      text: "",
      fields: {
        api: "POST /open-apis/im/v1/messages",
        status: 400,
        code: 230001,
        err: "invalid param",
        logId: "L1",
      },
    });
    // A proxy's HTML page for an answer, Feishu's id in a header.
    const proxied = Object.assign(new Error("Request failed with status code 502"), {
      config: { data: card, url: "/open-apis/im/v1/messages/om_1/reply", method: "post" },
      response: { status: 502, data: `<html>${card}</html>`, headers: { "x-tt-logid": "L2" } },
    });
    expect(sdkLogEntry(["[request]", proxied])).toEqual({
      text: "[request]",
      fields: {
        api: "POST /open-apis/im/v1/messages/om_1/reply",
        status: 502,
        err: "Request failed with status code 502",
        logId: "L2",
      },
    });
    expect(JSON.stringify(sdkLogEntry([digest, proxied, { data: card }]))).not.toContain("SECRET");
  });
});
