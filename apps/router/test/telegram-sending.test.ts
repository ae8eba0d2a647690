import { describe, expect, it } from "vitest";
import { PlatformError } from "../src/platforms/platform-adapter.ts";
import { rejection, startFake, startPolling, telegramAdapter } from "./telegram-support.ts";

// What the Telegram adapter sends, edits, uploads and downloads, checked on the fake Bot API; and
// the PlatformError kinds the shared send queue decides its retries on. Sending needs no start().

async function setup() {
  const fake = await startFake();
  const user = fake.user({ username: "henry" });
  const chat = fake.privateChat(user);
  const { adapter, logs } = telegramAdapter(fake);
  return { fake, user, chat, adapter, logs, to: { userId: String(user.id) } };
}

describe("Telegram adapter, sending", () => {
  it("sends HTML with an inline keyboard as a reply, without link previews", async () => {
    const { fake, user, chat, adapter, to, logs } = await setup();
    const question = fake.injectText({ from: user, text: "deploy?" });
    const sent = await adapter.send(to, "<b>Deploy</b> to <code>prod</code>?", {
      replyTo: String(question.message?.message_id),
      buttons: [[{ label: "Yes", data: "d:yes" }], [{ label: "No", data: "d:no" }]],
      idempotencyKey: "answer-1",
    });
    expect(sent).toEqual({ messageId: "2" });
    expect(fake.callsOf("sendMessage")[0]?.params).toEqual({
      chat_id: String(chat.id),
      text: "<b>Deploy</b> to <code>prod</code>?",
      parse_mode: "HTML",
      link_preview_options: { is_disabled: true },
      reply_parameters: { message_id: 1, allow_sending_without_reply: true },
      reply_markup: {
        inline_keyboard: [[{ text: "Yes", callback_data: "d:yes" }], [{ text: "No", callback_data: "d:no" }]],
      },
    });
    expect(fake.renderTranscript(chat.id)).toBe(
      [
        "#1 @henry: deploy?",
        "#2 bot (reply to #1): Deploy to prod?",
        "   [Yes → d:yes]",
        "   [No → d:no]",
      ].join("\n"),
    );
    expect(fake.message(chat.id, 2)?.entities?.map((e) => e.type)).toEqual(["bold", "code"]);
    expect(logs().find((line) => line.msg === "Telegram sendMessage")).toMatchObject({
      idempotencyKey: "answer-1",
    });
    // A group chat id goes as chatId; the reply still goes out when its message is gone.
    const group = fake.group();
    await adapter.send({ chatId: String(group.id), userId: to.userId }, "to the group", {
      replyTo: "99",
      idempotencyKey: "g",
    });
    expect(fake.renderTranscript(group.id)).toBe("#1 bot: to the group");
  });

  it("edits text and buttons; an edit that changes nothing is not_modified", async () => {
    const { fake, chat, adapter, to } = await setup();
    const { messageId } = await adapter.send(to, "Working…", {
      buttons: [[{ label: "Stop", data: "stop" }]],
      idempotencyKey: "p",
    });
    await adapter.edit(to, messageId, "Working… <i>step 2</i>", {
      buttons: [[{ label: "Stop", data: "stop" }]],
    });
    expect(fake.renderTranscript(chat.id)).toBe("#1 bot (edited): Working… step 2\n   [Stop → stop]");
    const unchanged = await rejection(
      adapter.edit(to, messageId, "Working… <i>step 2</i>", { buttons: [[{ label: "Stop", data: "stop" }]] }),
    );
    expect(unchanged).toBeInstanceOf(PlatformError);
    expect(unchanged).toMatchObject({ kind: "not_modified", details: { status: 400 } });
    // No buttons given: the message keeps none.
    await adapter.edit(to, messageId, "Done");
    expect(fake.renderTranscript(chat.id)).toBe("#1 bot (edited): Done");
    expect(await rejection(adapter.edit(to, "not-an-id", "x"))).toMatchObject({ kind: "permanent" });
  });

  it("maps Telegram's failures to PlatformError kinds and never retries a send itself", async () => {
    const { fake, adapter, to } = await setup();
    const send = () => adapter.send(to, "hello", { idempotencyKey: "k" });
    fake.failNext("sendMessage", { status: 429, retryAfter: 7 });
    expect(await rejection(send())).toMatchObject({
      name: "PlatformError",
      kind: "rate_limited",
      details: { retryAfterMs: 7_000, status: 429 },
    });
    fake.failNext("sendMessage", { status: 502 });
    expect(await rejection(send())).toMatchObject({ kind: "transient", details: { status: 502 } });
    fake.failNext("sendMessage", { status: 502, body: "<html><h1>502 Bad Gateway</h1></html>" });
    expect(await rejection(send())).toMatchObject({ kind: "transient" });
    fake.failNext("sendMessage", { status: 403 });
    expect(await rejection(send())).toMatchObject({
      kind: "permanent",
      message: "sendMessage: Forbidden: bot was blocked by the user",
    });
    expect(fake.callsOf("sendMessage").map((call) => call.status)).toEqual([429, 502, 502, 403]);

    const unreachable = telegramAdapter(fake, { apiRoot: "http://127.0.0.1:1" }).adapter;
    const offline = await rejection(unreachable.send(to, "x", { idempotencyKey: "k" }));
    expect(offline).toMatchObject({ kind: "transient" });
    expect(String((offline as Error).message)).not.toContain(fake.token);
  });

  it("uploads images with sendPhoto and other files with sendDocument", async () => {
    const { fake, chat, adapter, to } = await setup();
    const png = Buffer.alloc(4096, 0x89);
    const report = Buffer.from("total: 42\n");
    const photo = await adapter.sendFile(
      to,
      { name: "chart.png", data: png, mimeType: "image/png" },
      { idempotencyKey: "f1" },
    );
    const document = await adapter.sendFile(
      to,
      { name: "report.txt", data: report, mimeType: "text/plain" },
      { idempotencyKey: "f2" },
    );
    expect([photo, document]).toEqual([{ messageId: "1" }, { messageId: "2" }]);
    expect(fake.sentFiles()).toMatchObject([
      { method: "sendPhoto", chat_id: chat.id, filename: "chart.png" },
      { method: "sendDocument", chat_id: chat.id, filename: "report.txt" },
    ]);
    expect(fake.sentFiles()[0]?.data.equals(png)).toBe(true);
    expect(fake.sentFiles()[1]?.data.equals(report)).toBe(true);

    // An image Telegram will not take as a photo goes as a document instead.
    fake.failNext("sendPhoto", { status: 400, description: "Bad Request: PHOTO_INVALID_DIMENSIONS" });
    const svg = Buffer.from("<svg/>");
    await adapter.sendFile(
      to,
      { name: "logo.svg", data: svg, mimeType: "image/svg+xml" },
      { idempotencyKey: "f3" },
    );
    expect(fake.sentFiles()[2]).toMatchObject({ method: "sendDocument", filename: "logo.svg" });
    // Over 10 MB an image cannot be a photo at all.
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
    await adapter.sendFile(
      to,
      { name: "scan.jpg", data: huge, mimeType: "image/jpeg" },
      { idempotencyKey: "f5" },
    );
    expect(fake.sentFiles()[3]).toMatchObject({ method: "sendDocument", filename: "scan.jpg" });
    expect(fake.callsOf("sendPhoto")).toHaveLength(2);
    fake.failNext("sendPhoto", { status: 429, retryAfter: 3 });
    expect(
      await rejection(
        adapter.sendFile(to, { name: "a.png", data: png, mimeType: "image/png" }, { idempotencyKey: "f4" }),
      ),
    ).toMatchObject({ kind: "rate_limited", details: { retryAfterMs: 3_000 } });
  });

  it("downloads what a user sent, through getFile and the file URL", async () => {
    const fake = await startFake();
    const ivy = fake.user();
    const bytes = Buffer.from([0, 1, 2, 250, 251, 10, 13]);
    fake.injectDocument({ from: ivy, data: bytes, filename: "blob.bin" });
    fake.injectPhoto({ from: ivy, data: Buffer.alloc(512, 3) });
    const { adapter, events } = await startPolling(fake);
    const [documentMessage, photoMessage] = await events.messageCount(2);
    const [document] = documentMessage?.attachments ?? [];
    const [photo] = photoMessage?.attachments ?? [];
    if (!document || !photo || !adapter.download) throw new Error("expected two attachments and download");
    expect((await adapter.download(document)).equals(bytes)).toBe(true);
    expect((await adapter.download(photo)).equals(Buffer.alloc(512, 3))).toBe(true);
    expect(await rejection(adapter.download({ ...document, ref: "no-such-file" }))).toMatchObject({
      kind: "permanent",
      message: "getFile: Bad Request: invalid file_id",
    });
  });

  it("publishes the command menu without the entries Telegram would refuse", async () => {
    const { fake, adapter, logs } = await setup();
    await adapter.setCommands?.([
      { command: "status", description: "Show the nodes" },
      { command: "Bad-Name", description: "refused" },
      { command: "empty", description: "  " },
      { command: "long", description: "x".repeat(300) },
    ]);
    expect(fake.commands()).toEqual([
      { command: "status", description: "Show the nodes" },
      { command: "long", description: `${"x".repeat(255)}…` },
    ]);
    expect(logs().filter((line) => /left out of the Telegram menu/.test(String(line.msg)))).toHaveLength(2);
  });

  it("retries the calls the send queue does not own (auto-retry) on flood control", async () => {
    const { fake, adapter } = await setup();
    fake.failNext("setMyCommands", { status: 429, retryAfter: 1 });
    await adapter.setCommands?.([{ command: "help", description: "Help" }]);
    expect(fake.callsOf("setMyCommands").map((call) => call.status)).toEqual([429, 200]);
    expect(fake.commands()).toEqual([{ command: "help", description: "Help" }]);
  });

  it("reacts with an emoji from Telegram's list", async () => {
    const { fake, chat, adapter, to } = await setup();
    const { messageId } = await adapter.send(to, "done", { idempotencyKey: "r" });
    await adapter.react?.(to, messageId, "❤️");
    expect(fake.reactions(chat.id, Number(messageId))).toEqual([{ type: "emoji", emoji: "❤" }]);
    expect(await rejection(adapter.react?.(to, messageId, "✅") ?? Promise.resolve())).toMatchObject({
      kind: "permanent",
    });
  });
});
