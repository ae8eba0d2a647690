import {
  type FakeFeishu,
  feishuConversation,
  messageEvent,
  startFakeFeishu,
  waitFor,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { scope, startHost, startRouter } from "./support.ts";

// Feishu through the installed router: its bundled Lark SDK against the fake Feishu (FEISHU_DOMAIN),
// over the long connection and by webhook (signed and encrypted as Feishu sends it), a command
// answered by an installed host, and a button on a card pressed (the card.action.trigger callback).

const ALICE = "ou_alice";
const ALICE_CHAT = "oc_alice";
const ENCRYPT_KEY = "installed-encrypt-key";
const TOKEN = "installed-verification-token";

async function feishuWorld(env: Record<string, string> = {}) {
  const fake = await startFakeFeishu();
  scope.add(() => fake.close());
  const router = await startRouter({
    FEISHU_APP_ID: fake.appId,
    FEISHU_APP_SECRET: fake.appSecret,
    FEISHU_DOMAIN: fake.url,
    ALLOWED_USERS: ALICE,
    ...env,
  });
  await startHost(router, "box", { SERVES_USERS: ALICE });
  return { fake, router };
}

const chatOf = (fake: FakeFeishu) => feishuConversation(fake, ALICE, ALICE_CHAT);

describe("Feishu, installed", () => {
  it("ws: a /shell command over the long connection is answered in the chat; a button on a card is pressed", async () => {
    const { fake } = await feishuWorld();
    await fake.waitForWsConnection();
    expect(await chatOf(fake).say("/shell echo over-ws", /over-ws/)).toMatch(/over-ws/);
    // /node offers the user's nodes as buttons; pressing one is saying "/node box".
    await chatOf(fake).say("/node", /Active node|No active node/);
    const card = await waitFor(
      () => fake.sent().find((m) => fake.cardButtons(m.message_id).some((b) => b.label.endsWith("box"))),
      { message: "a card with the node's button" },
    );
    const label = fake.cardButtons(card.message_id).find((b) => b.label.endsWith("box"))?.label ?? "";
    const pressed = await fake.pressButton({ openId: ALICE, messageId: card.message_id, label });
    expect(pressed).toMatchObject({ toast: { content: `✓ ${label}` }, card: expect.any(Object) });
    expect(pressed.refused).toBeUndefined();
    expect(fake.cardButtons(card.message_id)).toEqual([]);
    await waitFor(() => chatOf(fake).texts().includes("✅ Active node: box."), {
      timeoutMs: 30_000,
      message: "the press answered in Feishu",
    });
  });

  it("webhook: the URL check is answered, and a signed, encrypted event is answered in the chat", async () => {
    const { fake, router } = await feishuWorld({
      FEISHU_MODE: "webhook",
      FEISHU_ENCRYPT_KEY: ENCRYPT_KEY,
      FEISHU_VERIFICATION_TOKEN: TOKEN,
    });
    const hook = `${router.url}/webhook/feishu`;
    const challenge = await fake.postWebhook(
      hook,
      { type: "url_verification", challenge: "c-42", token: TOKEN },
      { encryptKey: ENCRYPT_KEY },
    );
    expect(challenge).toEqual({ status: 200, body: { challenge: "c-42" } });

    const event = messageEvent({
      openId: ALICE,
      chatId: ALICE_CHAT,
      chatType: "p2p",
      text: "/shell echo via-hook",
      token: TOKEN,
    });
    expect((await fake.postWebhook(hook, event, { encryptKey: ENCRYPT_KEY })).status).toBe(200);
    await waitFor(
      () =>
        chatOf(fake)
          .texts()
          .find((text) => text.includes("via-hook")),
      {
        timeoutMs: 30_000,
        message: "the event answered in Feishu",
      },
    );
  });
});
