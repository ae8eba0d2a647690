import { createTestLogger, fcParams } from "@phonework/testkit";
import fc from "fast-check";
import { GrammyError, HttpError } from "grammy";
import { describe, expect, it } from "vitest";
import { PlatformError } from "../src/platforms/platform-adapter.ts";
import { menuCommands } from "../src/platforms/telegram/bot-commands.ts";
import { readUpdate } from "../src/platforms/telegram/incoming-update.ts";
import { toPlatformError } from "../src/platforms/telegram/telegram-error.ts";

// The pure parts of the Telegram adapter: reading an update (every field hostile), addressing in
// groups, attachments, the command menu and the error mapping.

const BOT = { id: 999, username: "phonework_bot" };
const ALICE = { id: 11, is_bot: false, first_name: "Alice" };
const PRIVATE = { id: 11, type: "private" };
const GROUP = { id: -100123, type: "supergroup", title: "Team" };

const update = (body: Record<string, unknown>, id = 7): Record<string, unknown> => ({
  update_id: id,
  ...body,
});
const message = (fields: Record<string, unknown>, chat: object = PRIVATE) =>
  update({ message: { message_id: 3, date: 1, chat, from: ALICE, ...fields } });
/** A text as Telegram's clients send it: entities for each @mention and bot command. */
const typed = (text: string, chat: object = GROUP, extra: Record<string, unknown> = {}) => {
  const entities = [...text.matchAll(/\/\w+(?:@\w+)?|@\w+/g)].map((match) => ({
    type: match[0].startsWith("/") ? "bot_command" : "mention",
    offset: match.index ?? 0,
    length: match[0].length,
  }));
  return message({ text, entities, ...extra }, chat);
};

const read = (raw: unknown) => readUpdate(raw, BOT);
const readMessage = (raw: unknown) => {
  const result = read(raw);
  if (result.kind !== "message") throw new Error(`not a message: ${JSON.stringify(result)}`);
  return result.message;
};

describe("reading Telegram updates", () => {
  it("a private text becomes a ChannelMessage keyed by its update_id", () => {
    expect(read(message({ text: "hello" }))).toEqual({
      kind: "message",
      message: {
        id: "3",
        channel: { id: "11", type: "private" },
        sender: { id: "11", name: "Alice", isBot: false },
        text: "hello",
        attachments: [],
        isMention: true,
        dedupeKeys: ["update:7"],
      },
    });
  });

  it("in groups, only a mention, a command to the bot or a reply to it is addressed to it", () => {
    const cases: Array<[unknown, string, boolean]> = [
      [typed("lunch?"), "lunch?", false],
      [typed("@phonework_bot  deploy now"), "deploy now", true],
      [typed("@PhoneWork_Bot status"), "status", true],
      [typed("/status@phonework_bot web"), "/status web", true],
      [typed("@phonework_bot /status@phonework_bot"), "/status", true],
      [typed("/status@other_bot"), "/status@other_bot", false],
      [typed("/status"), "/status", false],
      [typed("ask @phonework_bot later"), "ask @phonework_bot later", true],
      [typed("@someone_else hi"), "@someone_else hi", false],
      [
        typed("sure", GROUP, {
          reply_to_message: { message_id: 2, from: { ...ALICE, id: 999, is_bot: true } },
        }),
        "sure",
        true,
      ],
      [typed("sure", GROUP, { reply_to_message: { message_id: 2, from: ALICE } }), "sure", false],
      [
        message(
          { text: "hi there", entities: [{ type: "text_mention", offset: 3, length: 5, user: { id: 999 } }] },
          GROUP,
        ),
        "hi there",
        true,
      ],
      // In private chats everything is for the bot; commands lose the name all the same.
      [typed("/start@phonework_bot", PRIVATE), "/start", true],
    ];
    for (const [raw, text, isMention] of cases) {
      const read = readMessage(raw);
      expect([read.text, read.isMention, read.channel.type]).toEqual([
        text,
        isMention,
        (raw as { message: { chat: { type: string } } }).message.chat.type === "private"
          ? "private"
          : "group",
      ]);
    }
    expect(readMessage(typed("x", GROUP, { reply_to_message: { message_id: 2 } })).replyTo).toBe("2");
  });

  it("entities past the end of the text, or overlapping, cannot break the text", () => {
    const raw = message(
      {
        text: "@phonework_bot hello world",
        entities: [
          { type: "mention", offset: 0, length: 14 },
          { type: "bot_command", offset: 10, length: 40 },
          { type: "mention", offset: 0, length: 14 },
          { type: "mention", offset: 5, length: 14 },
        ],
      },
      GROUP,
    );
    expect(readMessage(raw)).toMatchObject({ text: "hello world", isMention: true });
  });

  it("captions, documents and photos (the largest size) become text and attachments", () => {
    const document = {
      file_id: "BQAC-doc",
      file_unique_id: "AgADdoc",
      file_name: "../../etc/pass\u0000wd",
      mime_type: "text/plain",
      file_size: 12,
    };
    expect(readMessage(message({ caption: "read this", document }))).toMatchObject({
      text: "read this",
      attachments: [{ name: "passwd", mimeType: "text/plain", size: 12, ref: "BQAC-doc" }],
    });
    const unnamed = { file_id: "BQAC-x", file_unique_id: "AgADx" };
    expect(readMessage(message({ document: unnamed })).attachments).toEqual([
      { name: "document-AgADx", ref: "BQAC-x" },
    ]);
    const photo = [
      { file_id: "small", file_unique_id: "u-small", width: 90, height: 60, file_size: 900 },
      { file_id: "big", file_unique_id: "u-big", width: 1280, height: 960, file_size: 90_000 },
      { file_id: "mid", file_unique_id: "u-mid", width: 320, height: 240 },
    ];
    expect(readMessage(message({ photo })).attachments).toEqual([
      { name: "photo-u-big.jpg", mimeType: "image/jpeg", size: 90_000, ref: "big" },
    ]);
  });

  it("a voice note and an audio file are audio attachments, named by the sender only after their last path segment", () => {
    const voice = readMessage(
      message({
        voice: { file_id: "v1", file_unique_id: "uv", duration: 3, mime_type: "audio/ogg", file_size: 900 },
        caption: "listen",
      }),
    );
    expect(voice).toMatchObject({ text: "listen" });
    expect(voice.unsupported).toBeUndefined();
    expect(voice.attachments).toEqual([
      { name: "voice-uv.ogg", mimeType: "audio/ogg", ref: "v1", size: 900, durationS: 3 },
    ]);
    const audio = readMessage(
      message({ audio: { file_id: "a1", file_unique_id: "ua", file_name: "../../etc/song.mp3" } }),
    );
    expect(audio.attachments).toEqual([{ name: "song.mp3", ref: "a1" }]);
  });

  it("stickers are unsupported messages; service messages, edits and channels are ignored", () => {
    expect(readMessage(message({ sticker: { file_id: "s" } }))).toMatchObject({
      text: "",
      unsupported: "sticker",
    });
    expect(readMessage(message({ video_note: { file_id: "v" }, caption: "look" }))).toMatchObject({
      text: "look",
      unsupported: "video_note",
    });
    expect(read(message({ new_chat_members: [ALICE] }))).toEqual({
      kind: "ignore",
      reason: "service message",
    });
    expect(read(update({ edited_message: { message_id: 1 } }))).toEqual({
      kind: "ignore",
      reason: "edited_message update",
    });
    expect(read(update({ channel_post: { message_id: 1 } }))).toMatchObject({ kind: "ignore" });
    expect(read(message({ text: "x" }, { id: -100, type: "channel" }))).toMatchObject({ kind: "ignore" });
    expect(read(message({ text: "x", from: { ...ALICE, is_bot: true } }))).toEqual({
      kind: "ignore",
      reason: "message from a bot",
    });
    expect(read(message({ text: "x", from: undefined }))).toMatchObject({ kind: "ignore" });
  });

  it("a callback query becomes a ButtonPress; from a bot, too long or without a message it is ignored", () => {
    const query = (fields: Record<string, unknown>) =>
      update({
        callback_query: {
          id: "cb1",
          from: ALICE,
          chat_instance: "1",
          data: "approve:1",
          message: { message_id: 4, date: 1, chat: GROUP },
          ...fields,
        },
      });
    expect(read(query({}))).toEqual({
      kind: "button",
      callbackQueryId: "cb1",
      press: {
        channel: { id: "-100123", type: "group" },
        sender: { id: "11", name: "Alice", isBot: false },
        data: "approve:1",
        messageId: "4",
      },
    });
    expect(read(query({ data: "é".repeat(32) }))).toMatchObject({ kind: "button" });
    for (const fields of [
      { data: "é".repeat(33) },
      { from: { ...ALICE, is_bot: true } },
      { data: undefined },
      { message: undefined },
      { id: 5 },
    ]) {
      expect(read(query(fields))).toMatchObject({ kind: "ignore" });
    }
  });

  it("never throws, whatever the update holds", () => {
    const valid = typed("@phonework_bot /run@phonework_bot x", GROUP, {
      document: { file_id: "d", file_unique_id: "u" },
      reply_to_message: { message_id: 1 },
    });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(["message", "button", "ignore"]).toContain(read(value).kind);
      }),
      fcParams({ numRuns: 300 }),
    );
    // The same with one field of a valid update replaced by anything.
    const fields = ["message_id", "chat", "from", "text", "entities", "document", "reply_to_message"];
    const validMessage = valid.message as Record<string, unknown>;
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.jsonValue(), (field, value) => {
        expect(["message", "ignore"]).toContain(
          read({ ...valid, message: { ...validMessage, [field]: value } }).kind,
        );
        expect(["message", "ignore"]).toContain(read({ ...valid, update_id: value }).kind);
      }),
      fcParams({ numRuns: 300 }),
    );
  });
});

describe("Telegram's errors as PlatformError", () => {
  const grammyError = (error_code: number, description: string, parameters = {}) =>
    new GrammyError(
      `Call to 'sendMessage' failed! (${error_code}: ${description})`,
      { ok: false, error_code, description, parameters },
      "sendMessage",
      {},
    );

  it("429 is rate_limited with retry_after, 5xx and the network transient, other 4xx permanent", () => {
    expect(
      toPlatformError(grammyError(429, "Too Many Requests: retry after 12", { retry_after: 12 })),
    ).toMatchObject({
      kind: "rate_limited",
      details: { retryAfterMs: 12_000, status: 429 },
    });
    expect(toPlatformError(grammyError(500, "Internal Server Error")).kind).toBe("transient");
    expect(toPlatformError(grammyError(400, "Bad Request: chat not found")).kind).toBe("permanent");
    expect(toPlatformError(grammyError(403, "Forbidden: bot was blocked by the user")).kind).toBe(
      "permanent",
    );
    expect(
      toPlatformError(grammyError(400, "Bad Request: message is not modified: specified new message content"))
        .kind,
    ).toBe("not_modified");
    const network = new HttpError(
      "Network request for 'sendMessage' failed!",
      new Error("http://x/bot123:SECRET/"),
    );
    expect(toPlatformError(network)).toMatchObject({ kind: "transient", message: network.message });
    const own = new PlatformError("permanent", "bad id");
    expect(toPlatformError(own)).toBe(own);
  });
});

describe("the Telegram command menu", () => {
  it("keeps names Telegram accepts, shortens long descriptions, at most 100", () => {
    const { logger } = createTestLogger();
    const many = Array.from({ length: 120 }, (_, i) => ({ command: `c${i}`, description: "d" }));
    expect(menuCommands(many, logger)).toHaveLength(100);
    expect(
      menuCommands(
        [
          { command: "ok_1", description: " Fine " },
          { command: "x".repeat(33), description: "too long a name" },
          { command: "UPPER", description: "no capitals" },
          { command: "", description: "no name" },
        ],
        logger,
      ),
    ).toEqual([{ command: "ok_1", description: "Fine" }]);
  });
});
