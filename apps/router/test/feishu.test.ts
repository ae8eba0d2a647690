import { type FakeFeishu, messageEvent, startFakeFeishu, waitFor } from "@phonework/testkit";
import { beforeEach, describe, expect, it } from "vitest";
import { sentTexts as sentTo, startFeishuRouter as startRouter, textOf, withHost } from "./feishu-support.ts";
import { adminHeaders, onCleanup } from "./support.ts";

// The router's Feishu front end, driven through the real SDK against a fake Feishu server.

let fake: FakeFeishu;
beforeEach(async () => {
  fake = await startFakeFeishu();
  onCleanup(() => fake.close());
});

const startFeishuRouter = (overrides: Record<string, unknown> = {}) => startRouter(fake, overrides);
const sentTexts = (chatId?: string) => sentTo(fake, chatId);
/** Answers are replies to the message they answer; other messages are plain sends. */
const SEND_OR_REPLY = /\/open-apis\/im\/v1\/messages(?:\/[^/]+\/reply)?$/;

describe("Feishu over the long connection (real SDK, fake Feishu)", () => {
  it("a private message is forwarded and answered with a card in the same chat", async () => {
    const { router } = await startFeishuRouter();
    await withHost(router);
    const ack = await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "hello" }),
    );
    expect(ack.code).toBe(200);
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: hello"));
    const reply = fake.sent().find((m) => textOf(m) === "home-pc: hello");
    expect(reply).toMatchObject({
      msg_type: "interactive",
      receive_id_type: "chat_id",
      receive_id: "oc_alice",
    });
    expect((reply?.content as { schema?: string } | undefined)?.schema).toBe("2.0");
  });

  it("in a group, only messages that @mention the bot are answered", async () => {
    const { router } = await startFeishuRouter();
    await withHost(router);
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_team", chatType: "group", text: "not for the bot" }),
    );
    await fake.pushEvent(
      messageEvent({
        openId: "ou_alice",
        chatId: "oc_team",
        chatType: "group",
        text: "@_user_1 status",
        mentions: [{ key: "@_user_1", openId: fake.botOpenId, name: "PhoneWork" }],
      }),
    );
    await fake.pushEvent(
      messageEvent({
        openId: "ou_alice",
        chatId: "oc_team",
        chatType: "group",
        text: "@_user_1 ping bob",
        mentions: [{ key: "@_user_1", openId: "ou_bob", name: "Bob" }],
      }),
    );
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "after" }),
    );
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: after"));
    await waitFor(() => sentTexts("oc_team").includes("home-pc: status"));
    expect(sentTexts("oc_team")).toEqual(["home-pc: status"]);
  });

  it("a redelivered event gets exactly one reply, also after a router restart", async () => {
    const first = await startFeishuRouter();
    const host = await withHost(first.router);
    const event = messageEvent({
      openId: "ou_alice",
      chatId: "oc_alice",
      chatType: "p2p",
      text: "once",
      eventId: "ev-1",
      messageId: "om-1",
    });
    await fake.pushEvent(event);
    await fake.pushEvent(event);
    await waitFor(() => sentTexts().includes("home-pc: once"));
    await host.stop();
    await first.close();
    const second = await startFeishuRouter({ DATA_DIR: first.config.DATA_DIR });
    await withHost(second.router);
    await fake.waitForWsConnection(2);
    await fake.pushEvent(event); // redelivered after the restart
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "next" }),
    );
    await waitFor(() => sentTexts().includes("home-pc: next"));
    expect(sentTexts().filter((t) => t === "home-pc: once")).toHaveLength(1);
  });

  it("an unknown user gets one reply naming their open_id, and nothing is forwarded", async () => {
    const { router } = await startFeishuRouter();
    let forwarded = 0;
    await withHost(router, "home-pc", {
      handle: async () => {
        forwarded++;
        return "should not happen";
      },
    });
    await fake.pushEvent(
      messageEvent({ openId: "ou_mallory", chatId: "oc_m", chatType: "p2p", text: "let me in" }),
    );
    await fake.pushEvent(
      messageEvent({ openId: "ou_mallory", chatId: "oc_m", chatType: "p2p", text: "please" }),
    );
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "/help" }),
    );
    await waitFor(() => sentTexts("oc_alice").length === 1);
    expect(sentTexts("oc_m")).toEqual([
      "🔒 This bot is private. Ask its owner to add your id to ALLOWED_USERS: feishu:ou_mallory",
    ]);
    expect(forwarded).toBe(0);
  });

  it("a message type the bot cannot read gets a clear reply", async () => {
    const { router } = await startFeishuRouter();
    await withHost(router);
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", messageType: "sticker" }),
    );
    await waitFor(() => sentTexts("oc_alice").length === 1);
    expect(sentTexts("oc_alice")[0]).toBe(
      "I cannot read this kind of message (sticker). Please send it as text.",
    );
  });

  it("a long answer is split into [i/n] messages with code blocks intact", async () => {
    const { router } = await startFeishuRouter();
    const code = [
      "```ts",
      ...Array.from({ length: 30 }, (_, i) => `export const value${i} = ${i}; // ${"x".repeat(60)}`),
      "```",
    ].join("\n");
    const long = [
      ...Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(15)}`),
      code,
    ].join("\n\n");
    await withHost(router, "home-pc", { handle: async () => long });
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "write a lot" }),
    );
    await waitFor(() => sentTexts("oc_alice").some((t) => /^\[(\d+)\/\1\]/.test(t)));
    const parts = sentTexts("oc_alice");
    expect(parts.length).toBeGreaterThan(1);
    for (const [i, part] of parts.entries())
      expect(part.startsWith(`[${i + 1}/${parts.length}]\n`)).toBe(true);
    const joined = parts.map((p) => p.replace(/^\[\d+\/\d+\]\n/, "")).join("\n\n");
    expect(joined).toContain(code);
  });

  it("a file from the host is uploaded and sent as a file message", async () => {
    const { router } = await startFeishuRouter();
    const host = await withHost(router);
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "hi" }),
    );
    await waitFor(() => sentTexts("oc_alice").length === 1);
    host.push({
      type: "send_file",
      user_id: "feishu:ou_alice",
      platform: "feishu",
      chat_id: "feishu:oc_alice",
      name: "report.txt",
      mime_type: "text/plain",
      data_base64: Buffer.from("all good").toString("base64"),
    });
    await waitFor(() => fake.sent().some((m) => m.msg_type === "file"));
    expect(fake.uploads()).toEqual([
      expect.objectContaining({ kind: "file", file_name: "report.txt", size: 8 }),
    ]);
  });

  it("a long-running request shows one progress card patched at most once per interval, then a new final message", async () => {
    const { router } = await startFeishuRouter({ PROGRESS_INTERVAL_S: 1 });
    // Fifteen lines in three bursts, each burst once the card shows the one before (so the work
    // spans two intervals): the lines of a burst are gathered into one patch.
    await withHost(router, "home-pc", {
      async handle(_request, ctx) {
        for (let step = 1; step <= 15; step++) {
          const patched = fake.patches().length;
          if (step === 6 || step === 11)
            await waitFor(() => fake.patches().length > patched, { message: "the card patched" });
          ctx.progress(`step ${step}`);
        }
        return "all steps done";
      },
    });
    const started = Date.now();
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "work" }),
    );
    await waitFor(() => sentTexts("oc_alice").includes("all steps done"));
    const elapsedS = (Date.now() - started) / 1000;
    const messages = fake.sent().filter((m) => m.receive_id === "oc_alice");
    expect(messages.map(textOf)).toEqual([expect.stringMatching(/^… step 1/), "all steps done"]);
    const patches = fake.patches().filter((p) => p.message_id === messages[0]?.message_id);
    // The last patch marks the card done (the "send" result mode); the ones before are progress.
    const card = fake.message(messages[0]?.message_id ?? "");
    expect(card && textOf(card)).toMatch(/^… step \d+(\n… step \d+)*\n✅ done$/);
    const progressPatches = patches.slice(0, -1);
    expect(progressPatches.length).toBeGreaterThanOrEqual(1);
    expect(progressPatches.length).toBeLessThanOrEqual(Math.ceil(elapsedS) + 1);
  });

  it("rate-limit answers (429) are retried after backoff and the reply is delivered", async () => {
    const { router } = await startFeishuRouter();
    await withHost(router);
    fake.failNext(SEND_OR_REPLY, {
      status: 429,
      headers: { "x-ogw-ratelimit-reset": "1" },
      times: 2,
    });
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "busy day" }),
    );
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: busy day"), { timeoutMs: 15_000 });
    expect(sentTexts("oc_alice")).toEqual(["home-pc: busy day"]);
  });

  it("Feishu answering 429, 5xx and slowly: every message answered exactly once (none lost, none doubled)", async () => {
    const { router } = await startFeishuRouter();
    await withHost(router);
    const send = SEND_OR_REPLY;
    fake.failNext(send, { status: 500, times: 2 });
    fake.failNext(send, { status: 429, headers: { "x-ogw-ratelimit-reset": "1" } });
    fake.failNext(send, { status: 200, delayMs: 1500 }); // slow, then answers
    const texts = ["one", "two", "three"];
    for (const text of texts)
      await fake.pushEvent(messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text }));
    await waitFor(() => texts.every((t) => sentTexts("oc_alice").includes(`home-pc: ${t}`)), {
      timeoutMs: 20_000,
    });
    // A chat's sends go one at a time, retries included: once a later answer is out, no earlier
    // send or retry is still on its way.
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "four" }),
    );
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: four"), { message: "the later answer" });
    const counts = texts.map((t) => sentTexts("oc_alice").filter((m) => m === `home-pc: ${t}`).length);
    expect({
      counts,
      lost: counts.filter((c) => c === 0).length,
      duplicated: counts.filter((c) => c > 1).length,
    }).toEqual({
      counts: [1, 1, 1],
      lost: 0,
      duplicated: 0,
    });
  });

  it("a send Feishu refuses is logged with its status, code, msg and log_id, never with what it carried", async () => {
    const { router, logs } = await startRouter(fake, {}, { logLevel: "trace" });
    await withHost(router);
    const marker = "quarterly-figures-7f3a";
    fake.failNext(SEND_OR_REPLY, { status: 400, code: 230001, msg: "invalid param", times: 20 });
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: `print ${marker}` }),
    );
    // The reply, then the plain message, card and text each: refused, and the user told so (refused too).
    const failed = await waitFor(() => logs().find((line) => line.msg === "sendText failed"), {
      timeoutMs: 15_000,
    });
    // The host did answer with it; nothing logged, at any level, carries it.
    expect(JSON.stringify(fake.calls)).toContain(marker);
    expect(logs().filter((line) => JSON.stringify(line).includes(marker))).toEqual([]);
    expect(failed).toMatchObject({ level: 50, status: 400, code: 230001, err: "invalid param" });
    expect(failed.logId).toMatch(/^\d{14}[0-9a-f]{20}$/);
    const sdk = logs().filter((line) => line.sdk === "lark");
    expect(sdk.length).toBeGreaterThan(0);
    for (const line of sdk)
      expect(line).toMatchObject({
        level: 50,
        api: expect.stringMatching(/^POST \/open-apis\/im\/v1\/messages/),
        status: 400,
        code: 230001,
        err: "invalid param",
        logId: expect.stringMatching(/^\d{14}[0-9a-f]{20}$/),
      });
  });

  it("the long connection dropped by Feishu is re-established and the next event answered; /health shows it", async () => {
    const { router, url } = await startFeishuRouter();
    await withHost(router);
    fake.dropWs();
    await fake.waitForWsConnection(2);
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_alice", chatType: "p2p", text: "still there?" }),
    );
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: still there?"));
    const health = (await (await fetch(`${url}/health`, adminHeaders)).json()) as {
      chat: Array<Record<string, unknown>>;
    };
    expect(health.chat[0]).toMatchObject({
      platform: "feishu",
      mode: "ws",
      connection: expect.objectContaining({ state: expect.any(String) }),
    });
  });
});

describe("Feishu over webhooks", () => {
  const webhook = {
    FEISHU_MODE: "webhook",
    FEISHU_ENCRYPT_KEY: "enc-key-123",
    FEISHU_VERIFICATION_TOKEN: "vtoken",
  };

  it("answers the challenge, accepts a signed and encrypted event, and refuses a bad signature", async () => {
    const { router, url } = await startFeishuRouter(webhook);
    await withHost(router);
    const challenge = await fake.postWebhook(
      `${url}/webhook/feishu`,
      { type: "url_verification", challenge: "abc", token: "vtoken" },
      { encryptKey: "enc-key-123" },
    );
    expect(challenge).toEqual({ status: 200, body: { challenge: "abc" } });
    const event = messageEvent({
      openId: "ou_alice",
      chatId: "oc_alice",
      chatType: "p2p",
      text: "via webhook",
      token: "vtoken",
    });
    const accepted = await fake.postWebhook(`${url}/webhook/feishu`, event, { encryptKey: "enc-key-123" });
    expect(accepted.status).toBe(200);
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: via webhook"));
    const forged = messageEvent({
      openId: "ou_alice",
      chatId: "oc_alice",
      chatType: "p2p",
      text: "forged",
      token: "vtoken",
    });
    const refused = await fake.postWebhook(`${url}/webhook/feishu`, forged, {
      encryptKey: "enc-key-123",
      badSignature: true,
    });
    expect(refused.status).toBe(401);
    const wrongToken = messageEvent({
      openId: "ou_alice",
      chatId: "oc_alice",
      chatType: "p2p",
      text: "wrong token",
      token: "nope",
    });
    expect(
      (await fake.postWebhook(`${url}/webhook/feishu`, wrongToken, { encryptKey: "enc-key-123" })).status,
    ).toBe(401);
    await fake.postWebhook(
      `${url}/webhook/feishu`,
      messageEvent({
        openId: "ou_alice",
        chatId: "oc_alice",
        chatType: "p2p",
        text: "last",
        token: "vtoken",
      }),
      { encryptKey: "enc-key-123" },
    );
    await waitFor(() => sentTexts("oc_alice").includes("home-pc: last"));
    expect(sentTexts("oc_alice")).not.toContain("home-pc: forged");
    expect(sentTexts("oc_alice")).not.toContain("home-pc: wrong token");
  });
});
