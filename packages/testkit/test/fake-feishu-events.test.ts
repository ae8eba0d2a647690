import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as lark from "@larksuiteoapi/node-sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeFeishu,
  messageEvent,
  startFakeFeishu,
  urlVerificationEvent,
  waitFor,
} from "../src/index.ts";

// Events reach the real SDK both ways Feishu delivers them: the WSClient long connection (protobuf
// frames, acks, reconnects) and signed/encrypted webhooks into the SDK's own EventDispatcher.

const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {}, trace: () => {} };
type Received = Record<string, unknown> & { message?: { content?: string; message_id?: string } };

let fake: FakeFeishu | undefined;
let wsClient: lark.WSClient | undefined;
let app: Server | undefined;
afterEach(async () => {
  wsClient?.close({ force: true });
  wsClient = undefined;
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
  app = undefined;
  await fake?.close();
  fake = undefined;
});

function dispatcherInto(
  received: Received[],
  params: { encryptKey?: string; verificationToken?: string } = {},
) {
  return new lark.EventDispatcher({ ...params, logger: quiet }).register({
    "im.message.receive_v1": async (data: Received) => {
      received.push(data);
      return { handled: data.message?.message_id };
    },
  });
}

/** A WSClient on the fake, started and connected (onReady fired). */
async function connect(target: FakeFeishu, received: Received[], appSecret = target.appSecret) {
  const status = { ready: false, reconnected: 0, error: undefined as Error | undefined };
  wsClient = new lark.WSClient({
    appId: target.appId,
    appSecret,
    domain: target.url,
    logger: quiet,
    onReady: () => {
      status.ready = true;
    },
    onReconnected: () => {
      status.reconnected += 1;
    },
    onError: (error: Error) => {
      status.error = error;
    },
  });
  await wsClient.start({ eventDispatcher: dispatcherInto(received) });
  return status;
}

const hello = (text: string) => messageEvent({ openId: "ou_alice", chatId: "oc_p2p", chatType: "p2p", text });

describe("fake Feishu long connection", () => {
  it("delivers a pushed event to the SDK's dispatcher and receives its ack", async () => {
    fake = await startFakeFeishu();
    const received: Received[] = [];
    const status = await connect(fake, received);
    await fake.waitForWsConnection();
    await waitFor(() => status.ready, { message: "WSClient onReady" });
    const event = hello("hi bot");
    const ack = await fake.pushEvent(event);
    expect(ack.code).toBe(200);
    const messageId = (event as { event: { message: { message_id: string } } }).event.message.message_id;
    // The handler's return value comes back base64-encoded JSON in the ack.
    expect(JSON.parse(Buffer.from(ack.data ?? "", "base64").toString("utf8"))).toEqual({
      handled: messageId,
    });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      event_type: "im.message.receive_v1",
      app_id: fake.appId,
      sender: { sender_id: { open_id: "ou_alice" } },
      message: { chat_type: "p2p", message_type: "text", content: JSON.stringify({ text: "hi bot" }) },
    });
    expect(fake.wsAcks()[0]?.headers).toMatchObject({ type: "event", sum: "1", seq: "0" });
    expect(fake.wsAcks()[0]?.headers.biz_rt).toBeDefined();
    const endpointCall = fake.calls.find((call) => call.path === "/callback/ws/endpoint");
    expect(endpointCall?.body).toEqual({ AppID: fake.appId, AppSecret: fake.appSecret });
  });

  it("splits a large event into sum/seq fragments that the SDK reassembles", async () => {
    fake = await startFakeFeishu();
    const received: Received[] = [];
    await connect(fake, received);
    await fake.waitForWsConnection();
    const long = "长消息 ".repeat(200);
    expect((await fake.pushEvent(hello(long), { fragmentBytes: 100 })).code).toBe(200);
    expect(JSON.parse(received[0]?.message?.content ?? "{}")).toEqual({ text: long });
    expect(Number(fake.wsAcks()[0]?.headers.sum)).toBeGreaterThan(10);
  });

  it("is reconnected to after dropWs(), and the next event is delivered", async () => {
    fake = await startFakeFeishu();
    const received: Received[] = [];
    const status = await connect(fake, received);
    await fake.waitForWsConnection();
    await fake.pushEvent(hello("before"));
    fake.dropWs();
    await fake.waitForWsConnection(2);
    await waitFor(() => status.reconnected === 1, { message: "WSClient onReconnected" });
    expect((await fake.pushEvent(hello("after"))).code).toBe(200);
    expect(received.map((event) => JSON.parse(event.message?.content ?? "{}").text)).toEqual([
      "before",
      "after",
    ]);
    expect(fake.calls.filter((call) => call.path === "/callback/ws/endpoint")).toHaveLength(2);
  });

  it("refuses the long connection to a wrong app secret, which the SDK reports as fatal", async () => {
    fake = await startFakeFeishu();
    const status = await connect(fake, [], "wrong-secret");
    await waitFor(() => status.error, { message: "WSClient onError" });
    expect(status.error?.message).toMatch(/code=514/);
    expect(fake.wsConnectionCount()).toBe(0);
  });
});

describe("fake Feishu webhooks", () => {
  async function serve(dispatcher: lark.EventDispatcher): Promise<string> {
    app = createServer(lark.adaptDefault("/feishu/events", dispatcher, { autoChallenge: true }));
    await new Promise<void>((resolve) => app?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(app.address() as AddressInfo).port}/feishu/events`;
  }

  it("posts encrypted, signed events the SDK verifies, and answers the challenge", async () => {
    fake = await startFakeFeishu();
    const encryptKey = "encrypt-key-123";
    const received: Received[] = [];
    const url = await serve(dispatcherInto(received, { encryptKey, verificationToken: "vt" }));
    const challenge = await fake.postWebhook(url, urlVerificationEvent({ challenge: "c-42", token: "vt" }), {
      encryptKey,
    });
    expect(challenge).toEqual({ status: 200, body: { challenge: "c-42" } });

    const event = messageEvent({
      openId: "ou_bob",
      chatId: "oc_group",
      chatType: "group",
      text: "@_user_1 deploy",
      mentions: [{ key: "@_user_1", openId: fake.botOpenId, name: "PhoneWork" }],
      token: "vt",
    });
    const accepted = await fake.postWebhook(url, event, { encryptKey });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ handled: received[0]?.message?.message_id });
    expect(received[0]).toMatchObject({
      token: "vt",
      message: { chat_type: "group", mentions: [{ key: "@_user_1", id: { open_id: fake.botOpenId } }] },
    });
  });

  it("makes a bad signature detectably different: no handler call, empty answer", async () => {
    fake = await startFakeFeishu();
    const encryptKey = "encrypt-key-123";
    const received: Received[] = [];
    const url = await serve(dispatcherInto(received, { encryptKey }));
    const tampered = await fake.postWebhook(url, hello("x"), { encryptKey, badSignature: true });
    const wrongKey = await fake.postWebhook(url, hello("y"), { encryptKey, signWith: "another-key" });
    expect(tampered).toEqual({ status: 200, body: "" });
    expect(wrongKey).toEqual({ status: 200, body: "" });
    expect(received).toEqual([]);
    const genuine = await fake.postWebhook(url, hello("z"), { encryptKey });
    expect(genuine.body).toMatchObject({ handled: expect.stringMatching(/^om_/) });
  });

  it("lets the bot reply to a message the fake delivered", async () => {
    fake = await startFakeFeishu();
    const received: Received[] = [];
    const url = await serve(dispatcherInto(received));
    await fake.postWebhook(url, hello("plain, unsigned"));
    const messageId = received[0]?.message?.message_id as string;
    const client = new lark.Client({
      appId: fake.appId,
      appSecret: fake.appSecret,
      domain: fake.url,
      cache: new lark.DefaultCache(),
      logger: quiet,
    });
    await client.im.v1.message.reply({
      path: { message_id: messageId },
      data: { msg_type: "text", content: JSON.stringify({ text: "on it" }) },
    });
    expect(fake.sent()).toMatchObject([
      { reply_to: messageId, chat_id: "oc_p2p", content: { text: "on it" } },
    ]);
    const direct = await client.im.v1.message.create({
      params: { receive_id_type: "open_id" },
      data: { receive_id: "ou_alice", msg_type: "text", content: JSON.stringify({ text: "dm" }) },
    });
    expect(direct.data?.chat_id).toBe("oc_p2p"); // the p2p chat learned from the event
  });
});
