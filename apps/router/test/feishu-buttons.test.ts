import type { Host } from "@phonework/host";
import {
  cardActionEvent,
  cardProblem,
  type FakeFeishu,
  messageEvent,
  sendWebhookRequest,
  startFakeFeishu,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingHost, sentTexts, startFeishuRouter } from "./feishu-support.ts";

// Buttons on Feishu: a real router (the real SDK) against one fake Feishu for the file, with a
// host that records what reaches it. A press is a card.action.trigger callback, over the long
// connection or posted to the webhook; the card is updated in place from the callback's answer.

let fake: FakeFeishu;
beforeAll(async () => {
  fake = await startFakeFeishu();
});
afterAll(() => fake.close());

const ENCRYPT_KEY = "enc-key-buttons";
const TOKEN = "vtoken-buttons";
const WEBHOOK = { FEISHU_MODE: "webhook", FEISHU_ENCRYPT_KEY: ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN: TOKEN };

/** The node asks Alice to approve, as a coding agent's approval request does (buttons bound to it). */
function askApproval(host: Host, chatId: string, id: number) {
  host.push({
    type: "notify",
    user_id: "feishu:ou_alice",
    platform: "feishu",
    chat_id: `feishu:${chatId}`,
    text: `🔐 Codex wants to run: make test\nReply /approve ${id} or /deny ${id}.`,
    buttons: [
      [
        { label: "Approve", command: `/approve ${id}` },
        { label: "Deny", command: `/deny ${id}` },
      ],
    ],
  });
}

/** The card the bot sent with these buttons, once it is there. */
const cardWith = (label: string, chatId: string) =>
  waitFor(
    () =>
      fake
        .sent()
        .filter((m) => m.chat_id === chatId && m.msg_type === "interactive")
        .find((m) => fake.cardButtons(m.message_id).some((b) => b.label === label)),
    { message: `a card with a "${label}" button in ${chatId}` },
  );

const answersIn = (chatId: string, pattern: RegExp) => sentTexts(fake, chatId).filter((t) => pattern.test(t));

const markdownOf = (content: unknown) =>
  ((content as { body?: { elements?: Array<{ tag: string; content?: string }> } }).body?.elements ?? [])
    .filter((e) => e.tag === "markdown")
    .map((e) => e.content)
    .join("\n");

describe("buttons over the long connection", () => {
  it("an approval pressed once: the card loses its buttons and says who approved, a redelivered callback presses nothing, a stranger's press is refused; /node offers the nodes as buttons", async () => {
    const { router } = await startFeishuRouter(fake);
    const { host, received } = await recordingHost(router);
    await fake.pushEvent(messageEvent({ openId: "ou_alice", chatId: "oc_ws", chatType: "p2p", text: "hi" }));
    await waitFor(() => received.includes("hi"));
    askApproval(host, "oc_ws", 7);
    const card = await cardWith("Approve", "oc_ws");
    expect(cardProblem(card.content)).toBeUndefined();
    expect(fake.cardButtons(card.message_id).map((b) => b.label)).toEqual(["Approve", "Deny"]);

    // Bob (in a group anyone can press) is not the one asked: nothing happens, the card stays.
    const stranger = await fake.pressButton({ openId: "ou_bob", messageId: card.message_id, label: "Deny" });
    expect(stranger).toEqual({
      messageId: card.message_id,
      toast: { type: "info", content: "This button is not for you." },
    });

    const [approve] = fake.cardButtons(card.message_id);
    const pressed = await fake.pressButton({
      openId: "ou_alice",
      messageId: card.message_id,
      label: "Approve",
      eventId: "ev-approve-7",
    });
    expect(pressed.toast).toEqual({ type: "info", content: "✓ Approve" });
    expect(pressed.refused).toBeUndefined();
    // The card for everyone: the question, no buttons, who answered and how.
    expect(fake.cardButtons(card.message_id)).toEqual([]);
    expect(markdownOf(fake.message(card.message_id)?.content)).toMatch(
      /make test[\s\S]*\n✓ Approve · <at id=ou_alice><\/at>$/,
    );
    expect(fake.cardVersions(card.message_id).map((v) => v.via)).toEqual(["send", "callback"]);
    // Pressing is saying the command: it reaches the node that offered the button.
    await waitFor(() => received.includes("/approve 7"));

    // Feishu delivering the same press again (same event id): acknowledged, nothing pressed.
    const redelivered = cardActionEvent({
      openId: "ou_alice",
      messageId: card.message_id,
      chatId: "oc_ws",
      value: approve?.value,
      eventId: "ev-approve-7",
    });
    // The answer is empty: no toast, the card left as the first press made it.
    expect(await fake.pushEvent(redelivered)).toEqual({
      code: 200,
      data: Buffer.from("{}").toString("base64"),
    });
    // A second press of that row (say from a second device) is told it was answered.
    const twice = await fake.pushEvent({
      ...redelivered,
      header: { event_id: "ev-approve-7b", event_type: "card.action.trigger" },
    });
    expect(twice.data).toBeDefined();

    await fake.pushEvent(
      messageEvent({ openId: "ou_alice", chatId: "oc_ws", chatType: "p2p", text: "/node" }),
    );
    const choice = await cardWith("→ home-pc", "oc_ws");
    expect(cardProblem(choice.content)).toBeUndefined();
    const picked = await fake.pressButton({
      openId: "ou_alice",
      messageId: choice.message_id,
      label: "→ home-pc",
    });
    expect(picked.toast?.content).toBe("✓ → home-pc");
    expect(picked.card && markdownOf(picked.card)).toContain("✓ → home-pc · <at id=ou_alice></at>");
    await waitFor(() => answersIn("oc_ws", /^✅ Active node: home-pc\.$/).length === 1);
    expect(received).not.toContain("/node home-pc");
    expect(received.filter((t) => /\/(approve|deny) 7/.test(t))).toEqual(["/approve 7"]);
  });
});

describe("buttons over webhooks", () => {
  it("a press posted to the webhook updates the card from the response; forged, unsigned, stale, wrongly tokened and replayed presses press nothing", async () => {
    const { router, url } = await startFeishuRouter(fake, WEBHOOK);
    const { host, received } = await recordingHost(router);
    const hook = `${url}/webhook/feishu`;
    const said = await fake.postWebhook(
      hook,
      messageEvent({ openId: "ou_alice", chatId: "oc_hook", chatType: "p2p", text: "hi", token: TOKEN }),
      { encryptKey: ENCRYPT_KEY },
    );
    expect(said.status).toBe(200);
    await waitFor(() => received.includes("hi"));
    askApproval(host, "oc_hook", 8);
    const card = await cardWith("Deny", "oc_hook");
    const input = { openId: "ou_alice", messageId: card.message_id, label: "Deny", token: TOKEN };

    const attacks = [
      { encryptKey: ENCRYPT_KEY, badSignature: true },
      { encryptKey: ENCRYPT_KEY, unsigned: true },
      { signWith: ENCRYPT_KEY },
      { encryptKey: "another-key" },
      { encryptKey: ENCRYPT_KEY, timestamp: Math.floor(Date.now() / 1000) - 3600 },
    ];
    for (const options of attacks) {
      const refused = await fake.postButtonPress(hook, input, options);
      expect(refused.status, JSON.stringify(options)).toBeGreaterThanOrEqual(400);
    }
    const wrongToken = await fake.postButtonPress(
      hook,
      { ...input, token: "not-the-token" },
      { encryptKey: ENCRYPT_KEY },
    );
    expect(wrongToken.status).toBe(401);
    expect(fake.cardButtons(card.message_id).map((b) => b.label)).toEqual(["Approve", "Deny"]);

    const genuine = fake.webhookRequest(fake.buttonPressEvent(input), { encryptKey: ENCRYPT_KEY });
    const answered = await sendWebhookRequest(hook, genuine);
    expect(answered).toMatchObject({
      status: 200,
      body: { toast: { content: "✓ Deny" }, card: { type: "raw" } },
    });
    const updated = (answered.body as { card: { data: Record<string, unknown> } }).card.data;
    expect(cardProblem(updated)).toBeUndefined();
    expect(markdownOf(updated)).toMatch(/✓ Deny · <at id=ou_alice><\/at>$/);
    await waitFor(() => received.includes("/deny 8"));
    // The very same request again (a replay inside the window): acknowledged, not pressed again.
    expect((await sendWebhookRequest(hook, genuine)).status).toBe(200);
    await fake.postWebhook(
      hook,
      messageEvent({ openId: "ou_alice", chatId: "oc_hook", chatType: "p2p", text: "after", token: TOKEN }),
      { encryptKey: ENCRYPT_KEY },
    );
    await waitFor(() => received.includes("after"));
    expect(received.filter((t) => /\/(approve|deny) 8/.test(t))).toEqual(["/deny 8"]);
  });
});
