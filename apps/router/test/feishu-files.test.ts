import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { ForwardFrame } from "@phonework/protocol";
import {
  cardProblem,
  createTestLogger,
  type FakeFeishu,
  messageEvent,
  startFakeFeishu,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceRef } from "../src/platforms/feishu/attachments.ts";
import { createFeishuAdapter } from "../src/platforms/feishu/feishu-adapter.ts";
import { type PlatformAdapter, PlatformError } from "../src/platforms/platform-adapter.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";
import { startFeishuRouter, withHost } from "./feishu-support.ts";

// Files users send on Feishu reach the host (downloaded through the message resource API of one
// fake Feishu for the file), and the adapter's own side of it: threads, edits with buttons,
// downloads refused past the size caps.

let fake: FakeFeishu;
beforeAll(async () => {
  fake = await startFakeFeishu();
});
afterAll(() => fake.close());

const MB = 1024 * 1024;

describe("files and images from users", () => {
  it("reach the host as attachments with safe names; one over the bound is named in the text instead, nothing else lost", async () => {
    // MAX_PAYLOAD_BYTES bounds what one message may carry to a host (70% of it in attachments).
    const { router } = await startFeishuRouter(fake, { MAX_PAYLOAD_BYTES: 100_000 });
    const received: ForwardFrame[] = [];
    await withHost(router, "home-pc", {
      async handle(request) {
        received.push(request);
        return `got ${request.attachments?.length ?? 0}`;
      },
    });
    const say = async (input: Partial<Parameters<typeof messageEvent>[0]>) => {
      const before = received.length;
      await fake.pushEvent(
        messageEvent({ openId: "ou_alice", chatId: "oc_files", chatType: "p2p", ...input }),
      );
      return waitFor(() => received[before], {
        message: `the ${input.messageType ?? "post"} message at the host`,
      });
    };
    // The host saves each file in the chat's attachments/ and tells its handler where, a line each.
    const attached = (frame: ForwardFrame) =>
      [...frame.text.matchAll(/\[attached: (.+) \(\d[^)]*\)\]/g)].map(([, path = ""]) => ({
        name: basename(path),
        data: readFileSync(path),
      }));

    const report = Buffer.from("quarterly numbers\n");
    const file = await say({
      messageType: "file",
      resourceKey: fake.userFile(report, { name: "report.txt", contentType: "text/plain" }),
      fileName: "../../etc/passwd",
    });
    expect(attached(file)).toEqual([{ name: "passwd", data: report }]);

    const png = randomBytes(3_000);
    const image = await say({ messageType: "image", resourceKey: fake.userImage(png) });
    expect(attached(image)).toEqual([{ name: expect.stringMatching(/^image-\w{1,8}\.jpg$/), data: png }]);

    // An audio message is a voice note, heard on the router (voice-platforms.test.ts).

    const inPost = randomBytes(1_000);
    const post = await say({
      post: {
        title: "",
        content: [
          [
            { tag: "text", text: "what is this?" },
            { tag: "img", image_key: fake.userImage(inPost) },
          ],
        ],
      },
    });
    expect(post.text).toMatch(/^what is this\?\n\[attached: /);
    expect(attached(post).map((a) => a.data)).toEqual([inPost]);

    const big = await say({
      messageType: "file",
      resourceKey: fake.userFile(randomBytes(80_000), { name: "big.bin" }),
      fileName: "big.bin",
    });
    expect(attached(big)).toEqual([]);
    expect(big.text).toMatch(/^\[attachment big\.bin not received: larger than \d+ KB\]$/);
    // A sticker is still nothing the bot can read: the sender is told, the host gets nothing.
    const before = received.length;
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_files", chatType: "p2p", messageType: "sticker" }),
    );
    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_files", chatType: "p2p", text: "done" }),
    );
    await waitFor(() => received.some((r) => r.text === "done"));
    expect(received.slice(before).map((r) => r.text)).toEqual(["done"]);
    expect(fake.downloads().every((d) => d.status === 200)).toBe(true);
  });
});

describe("the adapter's own side", () => {
  let adapter: PlatformAdapter;
  beforeAll(() => {
    adapter = createFeishuAdapter({
      name: "feishu",
      appId: fake.appId,
      appSecret: fake.appSecret,
      domain: fake.url,
      delivery: { mode: "ws" },
      seen: SeenEvents.inMemory(60_000, () => Date.now()),
      clock: { now: () => Date.now() },
      logger: createTestLogger().logger,
    });
  });
  const to = { chatId: "oc_adapter", userId: "ou_alice" };
  let key = 0;
  const idempotencyKey = () => `k-${++key}-${Date.now()}`;
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it("details go in the main message's thread; a card's buttons are patched in, changed and taken away", async () => {
    expect(adapter.capabilities).toMatchObject({
      threads: "threads",
      canSendButtons: true,
      filesIn: true,
      voiceIn: true,
    });
    const main = await adapter.send(to, "the answer", { idempotencyKey: idempotencyKey() });
    const details = await adapter.send(to, "🔧 ran `ls`", {
      idempotencyKey: idempotencyKey(),
      thread: main.messageId,
    });
    expect(fake.sent().find((m) => m.message_id === details.messageId)).toMatchObject({
      reply_to: main.messageId,
      reply_in_thread: true,
      msg_type: "interactive",
    });

    const sent = await adapter.send(to, "Working…", { idempotencyKey: idempotencyKey() });
    await adapter.edit(to, sent.messageId, "Working… step 2", {
      buttons: [[{ label: "Stop", data: "stop-1" }]],
    });
    expect(fake.cardButtons(sent.messageId)).toEqual([{ label: "Stop", value: { d: "stop-1" } }]);
    await adapter.edit(to, sent.messageId, "Done");
    expect(fake.cardButtons(sent.messageId)).toEqual([]);
    const versions = fake.cardVersions(sent.messageId);
    expect(versions.map((v) => v.via)).toEqual(["send", "patch", "patch"]);
    for (const version of versions) expect(cardProblem(version.content)).toBeUndefined();

    // A card Feishu refused went out as text: its edits replace the text (a text is no card to patch).
    fake.failNext(/\/im\/v1\/messages$/, { status: 400, code: 230099, msg: "Failed to create card content" });
    const text = await adapter.send(to, "plain now", { idempotencyKey: idempotencyKey() });
    expect(fake.message(text.messageId)).toMatchObject({ msg_type: "text", content: { text: "plain now" } });
    await adapter.edit(to, text.messageId, "still plain", { buttons: [[{ label: "Stop", data: "stop-2" }]] });
    expect(fake.message(text.messageId)).toMatchObject({
      msg_type: "text",
      content: { text: "still plain" },
    });
  });

  it("downloads what a user sent; an unknown key, a ref it did not make and a file over the cap are refused for good", async () => {
    const data = randomBytes(5_000);
    const imageKey = fake.userImage(data, "image/jpeg");
    const event = messageEvent({
      openId: "ou_alice",
      chatId: "oc_adapter",
      chatType: "p2p",
      messageType: "image",
      resourceKey: imageKey,
    });
    fake.rememberEvent(event); // the adapter is not receiving: only the download is tested here
    const messageId = (event as { event: { message: { message_id: string } } }).event.message.message_id;
    const download = adapter.download?.bind(adapter);
    if (!download) throw new Error("the Feishu adapter downloads");
    expect(await download({ name: "x.jpg", ref: resourceRef("image", messageId, imageKey) })).toEqual(data);

    const unknown = await rejection(
      download({ name: "x", ref: resourceRef("image", messageId, "img_v3_unknown") }),
    );
    expect(unknown).toBeInstanceOf(PlatformError);
    expect(unknown).toMatchObject({ kind: "permanent", details: { status: 404 } });
    const calls = fake.calls.length;
    expect(await rejection(download({ name: "x", ref: "file:om_1:../../etc" }))).toMatchObject({
      kind: "permanent",
    });
    expect(fake.calls.length).toBe(calls);

    const hugeKey = fake.userFile(Buffer.alloc(30 * MB + 1), { name: "huge.bin" });
    const huge = messageEvent({
      openId: "ou_alice",
      chatId: "oc_adapter",
      chatType: "p2p",
      messageType: "file",
      resourceKey: hugeKey,
    });
    fake.rememberEvent(huge);
    const hugeId = (huge as { event: { message: { message_id: string } } }).event.message.message_id;
    expect(
      await rejection(download({ name: "huge.bin", ref: resourceRef("file", hugeId, hugeKey) })),
    ).toMatchObject({
      kind: "permanent",
      message: expect.stringMatching(/over 31457280/),
    });

    // The fake serves nothing without a tenant token, and a key only with the message it is in.
    const path = `/open-apis/im/v1/messages/${messageId}/resources/${imageKey}?type=image`;
    expect(await (await fetch(`${fake.url}${path}`)).json()).toMatchObject({ code: 99991661 });
  });
});
