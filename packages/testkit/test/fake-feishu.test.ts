import * as lark from "@larksuiteoapi/node-sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type FakeFeishu, startFakeFeishu } from "../src/index.ts";

// The fake must be a faithful Feishu Open API: the real SDK sends, edits and uploads against it.

let fake: FakeFeishu;
afterEach(async () => {
  vi.useRealTimers();
  await fake?.close();
});

// The SDK ignores loggerLevel fatal (0) on Client (`level || info`): silence it with a logger instead.
const quiet = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {}, trace: () => {} };

// A private token cache per client: the SDK's default cache is process-global.
const clientFor = (target: FakeFeishu, appSecret = target.appSecret) =>
  new lark.Client({
    appId: target.appId,
    appSecret,
    domain: target.url,
    cache: new lark.DefaultCache(),
    logger: quiet,
  });

const text = (value: string) => JSON.stringify({ text: value });
const sharedCard = {
  config: { update_multi: true },
  header: { title: { tag: "plain_text", content: "Run" } },
  elements: [{ tag: "markdown", content: "working…" }],
};

/** What an SDK call rejected with, as a plain object. */
async function failure(call: Promise<unknown>) {
  const error = (await call.then(
    () => undefined,
    (reason: unknown) => reason,
  )) as {
    response?: { status: number; data: { code: number; msg: string }; headers: Record<string, string> };
  };
  expect(error?.response, "the SDK call should have rejected with an HTTP error").toBeDefined();
  return error.response as NonNullable<typeof error.response>;
}

describe("fake Feishu Open API", () => {
  it("records a text and an interactive card sent through the SDK, with one token fetch", async () => {
    fake = await startFakeFeishu();
    const client = clientFor(fake);
    const first = await client.im.v1.message.create({
      params: { receive_id_type: "chat_id" },
      data: { receive_id: "oc_chat", msg_type: "text", content: text("hello") },
    });
    const second = await client.im.v1.message.create({
      params: { receive_id_type: "open_id" },
      data: { receive_id: "ou_alice", msg_type: "interactive", content: JSON.stringify(sharedCard) },
    });
    expect(first.code).toBe(0);
    expect(first.data?.message_id).toMatch(/^om_[0-9a-f]{32}$/);
    expect(first.data).toMatchObject({
      chat_id: "oc_chat",
      msg_type: "text",
      sender: { sender_type: "app" },
    });
    expect(fake.sent()).toMatchObject([
      {
        message_id: first.data?.message_id,
        chat_id: "oc_chat",
        receive_id_type: "chat_id",
        content: { text: "hello" },
      },
      {
        message_id: second.data?.message_id,
        receive_id: "ou_alice",
        msg_type: "interactive",
        content: sharedCard,
      },
    ]);
    expect(fake.sent()[1]?.chat_id).toMatch(/^oc_/);
    expect(fake.tokenRequests()).toBe(1);
    const createCall = fake.calls.find((call) => call.path === "/open-apis/im/v1/messages");
    expect(createCall?.query).toEqual({ receive_id_type: "chat_id" });
    expect(createCall?.headers.authorization).toMatch(/^Bearer t-/);
  });

  it("records reply, patch and update, and enforces Feishu's edit rules", async () => {
    fake = await startFakeFeishu();
    const client = clientFor(fake);
    const textId = (
      await client.im.v1.message.create({
        params: { receive_id_type: "chat_id" },
        data: { receive_id: "oc_chat", msg_type: "text", content: text("v0") },
      })
    ).data?.message_id as string;
    const reply = await client.im.v1.message.reply({
      path: { message_id: textId },
      data: { msg_type: "interactive", content: JSON.stringify(sharedCard) },
    });
    const cardId = reply.data?.message_id as string;
    expect(reply.data).toMatchObject({ parent_id: textId, root_id: textId, chat_id: "oc_chat" });
    expect(fake.sent()[1]).toMatchObject({ reply_to: textId, chat_id: "oc_chat", msg_type: "interactive" });

    const patched = { ...sharedCard, elements: [{ tag: "markdown", content: "done" }] };
    const patch = await client.im.v1.message.patch({
      path: { message_id: cardId },
      data: { content: JSON.stringify(patched) },
    });
    expect(patch.code).toBe(0);
    expect(fake.patches()).toEqual([{ message_id: cardId, content: patched }]);
    expect(fake.message(cardId)?.content).toEqual(patched);

    const update = await client.im.v1.message.update({
      path: { message_id: textId },
      data: { msg_type: "text", content: text("v1") },
    });
    expect(update.data).toMatchObject({ message_id: textId, updated: true });
    expect(fake.updates()).toEqual([{ message_id: textId, msg_type: "text", content: { text: "v1" } }]);

    // patch edits cards only; update edits text/post only, at most 20 times.
    const notACard = await failure(
      client.im.v1.message.patch({
        path: { message_id: textId },
        data: { content: JSON.stringify(sharedCard) },
      }),
    );
    expect(notACard).toMatchObject({ status: 400, data: { code: 230001 } });
    const cardUpdate = await failure(
      client.im.v1.message.update({
        path: { message_id: cardId },
        data: { msg_type: "text", content: text("x") },
      }),
    );
    expect(cardUpdate.data.code).toBe(230001);
    for (let edit = 2; edit <= 20; edit++) {
      await client.im.v1.message.update({
        path: { message_id: textId },
        data: { msg_type: "text", content: text(`v${edit}`) },
      });
    }
    const tooMany = await failure(
      client.im.v1.message.update({
        path: { message_id: textId },
        data: { msg_type: "text", content: text("v21") },
      }),
    );
    expect(tooMany).toMatchObject({ status: 400, data: { code: 230072 } });
    expect(fake.updates()).toHaveLength(20);
    expect(fake.message(textId)?.content).toEqual({ text: "v20" });
  });

  it("makes create and reply idempotent by uuid", async () => {
    fake = await startFakeFeishu();
    const client = clientFor(fake);
    const send = (uuid: string, value: string) =>
      client.im.v1.message.create({
        params: { receive_id_type: "chat_id" },
        data: { receive_id: "oc_chat", msg_type: "text", content: text(value), uuid },
      });
    const first = await send("u-1", "once");
    const again = await send("u-1", "once, retried");
    const other = await send("u-2", "twice");
    expect(again.data?.message_id).toBe(first.data?.message_id);
    expect(other.data?.message_id).not.toBe(first.data?.message_id);
    const replyOnce = () =>
      client.im.v1.message.reply({
        path: { message_id: first.data?.message_id as string },
        data: { msg_type: "text", content: text("re"), uuid: "r-1" },
      });
    expect((await replyOnce()).data?.message_id).toBe((await replyOnce()).data?.message_id);
    expect(fake.sent().map((message) => [message.uuid, message.content])).toEqual([
      ["u-1", { text: "once" }],
      ["u-2", { text: "twice" }],
      ["r-1", { text: "re" }],
    ]);
  });

  it("records multipart file and image uploads with their real size", async () => {
    fake = await startFakeFeishu();
    const client = clientFor(fake);
    const bytes = Buffer.from([0, 255, 128, 10, 13, 0xe2, 0x82, ...Buffer.from("--not-a-boundary\r\n")]);
    const file = await client.im.v1.file.create({
      data: { file_type: "stream", file_name: "report.bin", file: bytes },
    });
    const png = Buffer.alloc(2048, 0x89);
    const image = await client.im.v1.image.create({ data: { image_type: "message", image: png } });
    expect(file?.file_key).toMatch(/^file_v3_/);
    expect(image?.image_key).toMatch(/^img_v3_/);
    expect(fake.uploads()).toEqual([
      { kind: "file", key: file?.file_key, file_name: "report.bin", file_type: "stream", size: bytes.length },
      { kind: "image", key: image?.image_key, image_type: "message", size: 2048 },
    ]);
    const uploadCall = fake.calls.find((call) => call.path === "/open-apis/im/v1/files");
    expect(uploadCall?.body).toMatchObject({
      file_type: "stream",
      file_name: "report.bin",
      file: { size: bytes.length },
    });
    const empty = await failure(
      client.im.v1.file.create({ data: { file_type: "stream", file_name: "e", file: Buffer.alloc(0) } }),
    );
    expect(empty.status).toBe(400);
  });

  it("issues tokens the SDK caches until 180 s before expiry, then refreshes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    fake = await startFakeFeishu({ tokenTtlS: 181 }); // the SDK keeps it for 181 - 180 = 1 s
    const client = clientFor(fake);
    const send = () =>
      client.im.v1.message.create({
        params: { receive_id_type: "chat_id" },
        data: { receive_id: "oc_chat", msg_type: "text", content: text("t") },
      });
    await send();
    await send();
    expect(fake.tokenRequests()).toBe(1);
    const bearer = (index: number) =>
      fake.calls.filter((call) => call.path === "/open-apis/im/v1/messages")[index]?.headers.authorization;
    vi.setSystemTime(Date.now() + 1_500);
    await send();
    expect(fake.tokenRequests()).toBe(2);
    expect(bearer(2)).not.toBe(bearer(0));
    vi.setSystemTime(Date.now() + 200_000); // past the fake's own expiry of every token so far
    await send();
    expect(fake.tokenRequests()).toBe(3);
    const stale = await fetch(`${fake.url}/open-apis/im/v1/messages?receive_id_type=chat_id`, {
      method: "POST",
      headers: { authorization: bearer(0) as string, "content-type": "application/json" },
      body: JSON.stringify({ receive_id: "oc_chat", msg_type: "text", content: text("x") }),
    });
    expect(stale.status).toBe(400);
    expect(await stale.json()).toMatchObject({ code: 99991663 });
  });

  it("rejects a wrong app secret and a missing token with Feishu's codes", async () => {
    fake = await startFakeFeishu();
    const wrong = clientFor(fake, "not-the-secret");
    const refused = await failure(
      wrong.im.v1.message.create({
        params: { receive_id_type: "chat_id" },
        data: { receive_id: "oc_chat", msg_type: "text", content: text("t") },
      }),
    );
    expect(refused).toMatchObject({ status: 400, data: { code: 10014 } });
    const anonymous = await fetch(`${fake.url}/open-apis/im/v1/images`, { method: "POST" });
    expect(await anonymous.json()).toMatchObject({ code: 99991661 });
    expect(fake.sent()).toEqual([]);
  });

  it("answers scripted faults: a 429 rejects the SDK call, a 200 with a code resolves with it", async () => {
    fake = await startFakeFeishu();
    const client = clientFor(fake);
    const send = () =>
      client.im.v1.message.create({
        params: { receive_id_type: "chat_id" },
        data: { receive_id: "oc_chat", msg_type: "text", content: text("t") },
      });
    fake.failNext(/^\/open-apis\/im\/v1\/messages$/, {
      status: 429,
      headers: { "x-ogw-ratelimit-limit": "50", "x-ogw-ratelimit-reset": "1" },
    });
    const limited = await failure(send());
    expect(limited.status).toBe(429);
    expect(limited.data).toMatchObject({ code: 99991400, msg: "request trigger frequency limit" });
    expect(limited.headers["x-ogw-ratelimit-reset"]).toBe("1");
    fake.failNext(/im\/v1\/messages/, {
      status: 200,
      code: 230020,
      msg: "This operation triggers the frequency limit.",
    });
    expect(await send()).toMatchObject({ code: 230020 });
    expect((await send()).code).toBe(0);
    expect(fake.sent()).toHaveLength(1);
    expect(fake.calls.filter((call) => call.path === "/open-apis/im/v1/messages")).toHaveLength(3);
  });

  it("answers unknown routes with a JSON 404 and records them", async () => {
    fake = await startFakeFeishu();
    const response = await fetch(`${fake.url}/open-apis/im/v1/chats?page_size=5`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 404 });
    expect(fake.calls.at(-1)).toMatchObject({
      method: "GET",
      path: "/open-apis/im/v1/chats",
      query: { page_size: "5" },
    });
  });
});
