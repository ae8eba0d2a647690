import { cardProblem, MAX_CARD_ELEMENTS } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import {
  attachmentsOf,
  parseResourceRef,
  resourceRef,
  safeName,
} from "../src/platforms/feishu/attachments.ts";
import { ButtonCards } from "../src/platforms/feishu/button-cards.ts";
import { markdownCard } from "../src/platforms/feishu/card.ts";
import { readCardCallback } from "../src/platforms/feishu/card-action.ts";
import { parseReceiveEvent } from "../src/platforms/feishu/incoming-event.ts";

// Feishu cards with buttons, card callbacks and attachments, read and built without a server. The
// card checks are the fake Feishu's (card-schema.ts), which refuses what Feishu refuses.

const button = (label: string, data = label) => ({ label, data });
type Node = Record<string, unknown>;
const elementsOf = (card: Node) => (card.body as { elements: Node[] }).elements;
/** The first button of the card's first row of buttons. */
function firstButton(card: Node): Node {
  const row = elementsOf(card)[1] as { columns: Array<{ elements: Node[] }> } | undefined;
  const found = row?.columns[0]?.elements[0];
  if (!found) throw new Error("the card has no button");
  return found;
}

describe("cards", () => {
  it("a card with rows of buttons is a valid 2.0 card: no action container, one column_set per row", () => {
    const card = markdownCard("🔐 Run `make test`?", [
      [button("Approve", "a1"), button("Deny", "d1")],
      [button("Later", "l1")],
    ]);
    expect(cardProblem(card)).toBeUndefined();
    const elements = elementsOf(card);
    expect(elements.map((e) => e.tag)).toEqual(["markdown", "column_set", "column_set"]);
    expect(JSON.stringify(card)).not.toContain('"action"');
    expect(firstButton(card)).toMatchObject({
      tag: "button",
      text: { tag: "plain_text", content: "Approve" },
      type: "primary",
      behaviors: [{ type: "callback", value: { d: "a1" } }],
    });
  });

  it("the fake refuses what Feishu refuses: the 1.0 action container in a 2.0 card, unknown tags, bad buttons", () => {
    const legacy = {
      schema: "2.0",
      body: {
        elements: [
          { tag: "action", actions: [{ tag: "button", text: { tag: "plain_text", content: "OK" } }] },
        ],
      },
    };
    expect(cardProblem(legacy)).toMatchObject({
      errCode: 200861,
      message: expect.stringContaining("unsupported tag action"),
    });
    expect(cardProblem({ schema: "2.0", body: { elements: [{ tag: "note", elements: [] }] } })?.errCode).toBe(
      200861,
    );
    expect(
      cardProblem({ schema: "2.0", config: { update_multi: false }, body: { elements: [] } }),
    ).toBeDefined();
    const emptyLabel = markdownCard("x", [[button("Go")]]);
    (firstButton(emptyLabel).text as Node).content = "";
    expect(cardProblem(emptyLabel)).toBeDefined();
    expect(cardProblem({ elements: [{ tag: "div" }] })).toBeUndefined(); // 1.0 cards keep their shape
  });

  it("long text, many buttons and blank labels still make a card Feishu takes", () => {
    const long = `${"```ts\n"}${"const x = 1; // ".repeat(240)}\n${"```"}`;
    expect(long.length).toBeGreaterThan(3800);
    expect(cardProblem(markdownCard(long, [[button("OK")]]))).toBeUndefined();
    // One row per node (the /node choice) for far more nodes than a card can show.
    const rows = Array.from({ length: 150 }, (_, i) => [button(`node-${i}`, `n${i}`)]);
    const many = markdownCard("Pick a node", rows, ["✓ node-1"]);
    expect(cardProblem(many)).toBeUndefined();
    const shown = elementsOf(many).filter((e) => e.tag === "column_set").length;
    expect(shown).toBeGreaterThan(50);
    expect(shown).toBeLessThan(150);
    expect(elementsOf(many).at(-1)).toEqual({ tag: "markdown", content: "✓ node-1" });
    const wide = markdownCard("A wide row", [Array.from({ length: 12 }, (_, i) => button(`b${i}`))]);
    expect(cardProblem(wide)).toBeUndefined();
    expect(cardProblem(markdownCard("blank", [[button("  ")]]))).toBeUndefined();
    expect(MAX_CARD_ELEMENTS).toBe(200);
  });

  it("a press by the card's owner removes that row and writes the outcome; a stranger's press changes nothing", () => {
    const cards = new ButtonCards();
    cards.sent("om_card", {
      text: "Pick",
      rows: [[button("Approve", "a"), button("Deny", "d")], [button("Other", "o")]],
      owner: "ou_alice",
      privateChat: true,
    });
    expect(cards.pressed("om_card", "a", "ou_bob", "This button is not for you.")).toBeUndefined();
    const after = cards.pressed("om_card", "a", "ou_alice", "✓ Approve");
    expect(cardProblem(after)).toBeUndefined();
    expect(after && elementsOf(after).map((e) => e.tag)).toEqual(["markdown", "column_set", "markdown"]);
    expect(after && elementsOf(after).at(-1)).toEqual({
      tag: "markdown",
      content: "✓ Approve · <at id=ou_alice></at>",
    });
    expect(cards.pressed("om_unknown", "a", "ou_alice", "✓")).toBeUndefined();
    cards.sent("om_card", {
      text: "edited, no buttons",
      rows: undefined,
      owner: "ou_alice",
      privateChat: true,
    });
    expect(cards.privateChat("om_card")).toBeUndefined();
  });
});

describe("card callbacks", () => {
  const event = {
    operator: { open_id: "ou_alice", union_id: "on_x" },
    token: "c-123",
    action: { value: { d: "abc" }, tag: "button" },
    host: "im_message",
    context: { open_message_id: "om_card", open_chat_id: "oc_chat" },
  };
  const privateChats = () => "private" as const;

  it("reads a press from the long connection's flat view and from a webhook's header and event", () => {
    const press = {
      channel: { id: "oc_chat", type: "private" },
      sender: { id: "ou_alice", isBot: false },
      data: "abc",
      messageId: "om_card",
    };
    expect(
      readCardCallback({ ...event, event_id: "ev1", event_type: "card.action.trigger" }, privateChats),
    ).toEqual({
      kind: "press",
      press,
      eventId: "ev1",
    });
    expect(readCardCallback({ schema: "2.0", header: { event_id: "ev2" }, event }, privateChats)).toEqual({
      kind: "press",
      press,
      eventId: "ev2",
    });
    expect(readCardCallback({ ...event, action: { value: '{"d":"abc"}' } }, () => "group")).toMatchObject({
      press: { data: "abc", channel: { type: "group" } },
    });
  });

  it("ignores what no button of ours sends: no data, data over 64 bytes, another element, a malformed callback", () => {
    const reasons = [
      { ...event, action: { value: {}, tag: "button" } },
      { ...event, action: { value: { d: "x".repeat(65) }, tag: "button" } },
      { ...event, action: { value: { d: "abc" }, tag: "select_static" } },
      { ...event, action: { value: "not json" } },
      { ...event, operator: {} },
      { ...event, context: { open_message_id: "om_card" } },
      null,
      "text",
    ].map((raw) => readCardCallback(raw, privateChats));
    for (const reason of reasons) expect(reason.kind).toBe("ignore");
  });
});

describe("attachments", () => {
  it("reads an image, a file, audio, a video and the images and videos in rich text, each with a ref the download can use", () => {
    expect(attachmentsOf("image", "om_1", { image_key: "img_v3_02ab_cdef0123g" })).toEqual([
      { name: "image-def0123g.jpg", ref: "image:om_1:img_v3_02ab_cdef0123g" },
    ]);
    expect(attachmentsOf("file", "om_1", { file_key: "file_v3_1", file_name: "report.pdf" })).toEqual([
      { name: "report.pdf", ref: "file:om_1:file_v3_1" },
    ]);
    expect(attachmentsOf("audio", "om_1", { file_key: "file_v3_2", duration: 2000 })).toEqual([
      { name: "audio-filev32.opus", mimeType: "audio/ogg", ref: "file:om_1:file_v3_2", durationS: 2 },
    ]);
    expect(
      attachmentsOf("media", "om_1", { file_key: "file_v3_3", image_key: "img_x", file_name: "clip.mp4" }),
    ).toEqual([{ name: "clip.mp4", mimeType: "video/mp4", ref: "file:om_1:file_v3_3" }]);
    const post = {
      title: "look",
      content: [
        [
          { tag: "text", text: "see" },
          { tag: "img", image_key: "img_a" },
        ],
        [{ tag: "media", file_key: "file_b", image_key: "img_c" }],
      ],
    };
    expect(attachmentsOf("post", "om_2", { zh_cn: post }).map((a) => a.ref)).toEqual([
      "image:om_2:img_a",
      "file:om_2:file_b",
    ]);
    expect(attachmentsOf("sticker", "om_1", { file_key: "file_v3_4" })).toEqual([]);
    expect(attachmentsOf("file", "om_1", { file_key: "../../etc" })).toEqual([]);
  });

  it("a message of images and files is read with them; a sticker stays unsupported", () => {
    const message = (type: string, content: object) =>
      parseReceiveEvent(
        {
          sender: { sender_id: { open_id: "ou_user" }, sender_type: "user" },
          message: {
            message_id: "om_9",
            chat_id: "oc_1",
            chat_type: "p2p",
            message_type: type,
            content: JSON.stringify(content),
          },
        },
        "ou_bot",
      );
    expect(message("file", { file_key: "file_1", file_name: "a.txt" })).toMatchObject({
      message: { text: "", attachments: [{ name: "a.txt", ref: "file:om_9:file_1" }] },
    });
    expect(message("audio", { file_key: "file_2" })).not.toHaveProperty("message.unsupported");
    expect(message("sticker", { file_key: "file_3" })).toMatchObject({
      message: { unsupported: "sticker", attachments: [] },
    });
    expect(message("image", {})).toMatchObject({ message: { unsupported: "image" } });
  });

  it("names are made safe: no path, no control or invisible characters, no leading dots, not too long", () => {
    expect(safeName("../../etc/passwd")).toBe("passwd");
    expect(safeName("..\\..\\boot.ini")).toBe("boot.ini");
    expect(safeName("re\u0000po\u001brt\u202e.txt")).toBe("report.txt");
    expect(safeName(".bashrc")).toBe("bashrc");
    expect(safeName("..")).toBeUndefined();
    expect(safeName("  ")).toBeUndefined();
    expect(safeName("")).toBeUndefined();
    expect(safeName(42)).toBeUndefined();
    const long = safeName(`${"a".repeat(300)}.tar.gz`);
    expect(long).toHaveLength(120);
    expect(long?.endsWith(".gz")).toBe(true);
    // A file whose name is nothing safe gets one by its type.
    expect(attachmentsOf("file", "om_1", { file_key: "file_v3_x", file_name: "../" })[0]?.name).toBe(
      "file-filev3x",
    );
  });

  it("a ref is read back only when it is one this adapter made", () => {
    expect(parseResourceRef(resourceRef("image", "om_1", "img_2"))).toEqual({
      type: "image",
      messageId: "om_1",
      key: "img_2",
    });
    for (const bad of [
      "",
      "image:om_1",
      "video:om_1:k",
      "file:om/1:k",
      "file:om_1:k:extra",
      "file:om_1:../k",
    ])
      expect(parseResourceRef(bad), bad).toBeUndefined();
  });
});
