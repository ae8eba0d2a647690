import { createTestLogger, listenOnLoopback, sendJson } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { WebhookEndpoint } from "../src/platforms/platform-adapter.ts";
import { createTelegramAdapter } from "../src/platforms/telegram/telegram-adapter.ts";
import { deferred, onCleanup, RecordingEvents, startFake, telegramAdapter } from "./telegram-support.ts";

// The Telegram adapter receiving by webhook: the fake Bot API POSTs each update to a loopback server
// that hands the raw body to the adapter's endpoint, as the router does.

const SECRET = "hook-secret_0123456789";

/** A loopback HTTP server in front of the endpoint the adapter will have (known only after creation). */
async function webhookReceiver() {
  let endpoint: WebhookEndpoint | undefined;
  const server = await listenOnLoopback(async (req, res, body) => {
    const answer = endpoint
      ? await endpoint.handle({ headers: req.headers, rawBody: body })
      : { status: 404, body: { error: "no endpoint" } };
    sendJson(res, answer.status, answer.body);
  });
  onCleanup(server.close);
  return {
    url: `${server.baseUrl}/webhook/telegram`,
    attach(webhook: WebhookEndpoint | undefined) {
      if (!webhook) throw new Error("the adapter has no webhook");
      endpoint = webhook;
    },
  };
}

async function startWebhookAdapter(events = new RecordingEvents()) {
  const fake = await startFake({ webhookRetryMs: 20 });
  const receiver = await webhookReceiver();
  const test = telegramAdapter(fake, { mode: { kind: "webhook", secret: SECRET, url: receiver.url } });
  receiver.attach(test.adapter.webhook);
  await test.adapter.start(events);
  return { fake, receiver, events, ...test };
}

const headers = (secret?: string | string[]) =>
  secret === undefined ? {} : { "x-telegram-bot-api-secret-token": secret };

describe("Telegram adapter, webhook", () => {
  it("registers the webhook with its secret and answers 200 only once the message is stored", async () => {
    const stored = deferred();
    const events = new RecordingEvents();
    events.onMessage = () => stored.promise;
    const { fake, receiver, adapter } = await startWebhookAdapter(events);
    expect(adapter.webhook?.path).toBe("/webhook/telegram");
    expect(fake.webhook()).toEqual({ url: receiver.url, secretToken: SECRET, maxConnections: 40 });
    expect(fake.callsOf("setWebhook")[0]?.params).toMatchObject({
      allowed_updates: ["message", "callback_query"],
    });

    const update = fake.injectText({ from: fake.user(), text: "via webhook" });
    const message = await events.messageWithText("via webhook");
    expect(message.dedupeKeys).toEqual([`update:${update.update_id}`]);
    expect(fake.webhookAttempts()).toEqual([]);
    expect(fake.isAcknowledged(update.update_id)).toBe(false);
    stored.resolve();
    await fake.waitForAcknowledged(update.update_id);
    expect(fake.webhookAttempts().map((attempt) => attempt.status)).toEqual([200]);

    // The same, asked directly: the answer waits for the shared layer.
    const later = deferred();
    events.onMessage = () => later.promise;
    const body = JSON.stringify({ ...update, update_id: update.update_id + 10 });
    let answered = false;
    const answer = (adapter.webhook as WebhookEndpoint).handle({ headers: headers(SECRET), rawBody: body });
    void answer.then(() => {
      answered = true;
    });
    await events.messageCount(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    later.resolve();
    expect(await answer).toEqual({ status: 200, body: {} });
    expect(adapter.status?.()).toEqual({
      platform: "telegram",
      name: "telegram",
      mode: "webhook",
      polling: false,
      lastUpdateId: update.update_id + 10,
    });
  });

  it("answers 500 when the message could not be stored, and Telegram delivers it again", async () => {
    const events = new RecordingEvents();
    let tries = 0;
    events.onMessage = async () => {
      tries += 1;
      if (tries === 1) throw new Error("disk full");
    };
    const { fake } = await startWebhookAdapter(events);
    const update = fake.injectText({ from: fake.user(), text: "retry me" });
    await fake.waitForAcknowledged(update.update_id);
    expect(fake.webhookAttempts().map((attempt) => attempt.status)).toEqual([500, 200]);
    expect(events.messages.map((m) => m.dedupeKeys)).toEqual([
      [`update:${update.update_id}`],
      [`update:${update.update_id}`],
    ]);
  });

  it("a delivery with the wrong secret gets 401 and delivers nothing", async () => {
    const { fake, receiver, events } = await startWebhookAdapter();
    // Someone else's secret registered for the same URL: every delivery is refused.
    await fetch(`${fake.url}/bot${fake.token}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, secret_token: "not-the-secret" }),
    });
    const update = fake.injectText({ from: fake.user(), text: "forged?" });
    await fake.waitForWebhookAttempt((attempt) => attempt.status === 401);
    expect(events.messages).toEqual([]);
    expect(fake.isAcknowledged(update.update_id)).toBe(false);
  });

  it("refuses a missing or repeated secret header (401) and a body that is not JSON (400)", async () => {
    const { fake, adapter, events } = await startWebhookAdapter();
    const webhook = adapter.webhook as WebhookEndpoint;
    const body = JSON.stringify({
      update_id: 5,
      message: {
        message_id: 1,
        date: 1,
        chat: { id: 42, type: "private" },
        from: { id: 42, is_bot: false, first_name: "Eve" },
        text: "hi",
      },
    });
    for (const secret of [undefined, "", "hook-secret_012345678", [SECRET, SECRET]]) {
      expect(await webhook.handle({ headers: headers(secret), rawBody: body })).toMatchObject({
        status: 401,
      });
    }
    expect(events.messages).toEqual([]);
    expect(await webhook.handle({ headers: headers(SECRET), rawBody: "{not json" })).toMatchObject({
      status: 400,
    });
    // Valid JSON that is no update we know is acknowledged, or Telegram would send it forever.
    expect(await webhook.handle({ headers: headers(SECRET), rawBody: "[1,2]" })).toMatchObject({
      status: 200,
    });
    expect(await webhook.handle({ headers: headers(SECRET), rawBody: body })).toEqual({
      status: 200,
      body: {},
    });
    expect(events.messages.map((m) => [m.text, m.sender.name])).toEqual([["hi", "Eve"]]);
    expect(fake.callsOf("getUpdates")).toEqual([]);
  });

  it("without a URL it registers nothing and says so; before start and after stop it answers 503", async () => {
    const fake = await startFake();
    const { adapter, logs } = telegramAdapter(fake, { mode: { kind: "webhook", secret: SECRET } });
    const webhook = adapter.webhook as WebhookEndpoint;
    const body = JSON.stringify({ update_id: 1 });
    expect(await webhook.handle({ headers: headers(SECRET), rawBody: body })).toMatchObject({ status: 503 });
    await adapter.start(new RecordingEvents());
    expect(fake.callsOf("setWebhook")).toEqual([]);
    expect(
      logs().some((line) => line.level === 40 && /webhook URL not configured/.test(String(line.msg))),
    ).toBe(true);
    expect(await webhook.handle({ headers: headers(SECRET), rawBody: body })).toMatchObject({ status: 200 });
    await adapter.stop();
    expect(await webhook.handle({ headers: headers(SECRET), rawBody: body })).toMatchObject({ status: 503 });
  });

  it("refuses a secret Telegram would not accept, before anything starts", async () => {
    const fake = await startFake();
    const create = (secret: string) => () =>
      createTelegramAdapter({
        name: "telegram",
        token: fake.token,
        apiRoot: fake.url,
        mode: { kind: "webhook", secret },
        logger: createTestLogger().logger,
      });
    expect(create("has spaces")).toThrow(/secret/);
    expect(create("")).toThrow(/secret/);
  });
});
