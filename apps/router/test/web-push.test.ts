import { Agent } from "node:https";
import {
  checkVapid,
  createTestLogger,
  type FakePush,
  newPushSubscriber,
  startFakePush,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { PushSender } from "../src/console/push/push-sender.ts";
import { PushStore } from "../src/console/push/push-store.ts";
import { PushSubscriptionInput } from "../src/console/push/push-subscription.ts";

// Web Push from the router's side against a fake push service (HTTPS, the test CA): the request
// carries a VAPID JWT for the service's origin signed with the router's kept key, and a body the
// fake decrypts with the browser's keys; a 410 makes the router forget the subscription.

let push: FakePush;
let agent: Agent;

beforeAll(async () => {
  push = await startFakePush();
  agent = new Agent({ ca: push.ca });
});

afterAll(async () => {
  agent?.destroy();
  await push?.close();
});

function world() {
  const store = PushStore.inMemory();
  const sender = new PushSender({
    store,
    subject: "mailto:ops@example.test",
    logger: createTestLogger().logger,
    agent,
  });
  const subscribe = (sessionId: string, userId = "alice") => {
    const subscriber = newPushSubscriber();
    const { id, endpoint } = push.subscribe(subscriber);
    store.subscribe(sessionId, userId, PushSubscriptionInput.parse({ endpoint, keys: subscriber.keys }));
    return { id, endpoint };
  };
  return { store, sender, subscribe };
}

describe("web push", () => {
  it("sends a VAPID-signed push for the service's origin that decrypts to the short summary", async () => {
    const { store, sender, subscribe } = world();
    const { id } = subscribe("session-1");
    const keys = await store.vapidKeys();
    expect(await store.vapidKeys()).toEqual(keys); // made once, kept

    const output = "x".repeat(5000);
    expect(
      await sender.sendToUser("alice", { title: "Task done on home-pc", body: output, tag: "task-1" }),
    ).toBe(1);
    const got = push.received.find((received) => received.id === id);
    expect(got?.k).toBe(keys.publicKey);
    expect(got?.claims.aud).toBe(push.origin);
    expect(got?.claims.sub).toBe("mailto:ops@example.test");
    const payload = JSON.parse(got?.payload ?? "{}") as { title: string; body: string; tag: string };
    expect(payload.title).toBe("Task done on home-pc");
    expect(payload.tag).toBe("task-1");
    expect(payload.body.length).toBeLessThanOrEqual(100); // no command output beyond a summary
    expect(await sender.sendToUser("bob", { title: "t", body: "b" })).toBe(0); // nobody else's
  });

  it("forgets a subscription the service answers 410 for, and a signed-out session's", async () => {
    const { store, sender, subscribe } = world();
    const kept = subscribe("session-1");
    const lost = subscribe("session-2");
    push.gone(lost.id);
    expect(await sender.sendToUser("alice", { title: "Node offline", body: "home-pc went offline" })).toBe(1);
    expect(store.forUser("alice").map((subscription) => subscription.endpoint)).toEqual([kept.endpoint]);

    store.dropSessions(["session-1"]);
    expect(store.forUser("alice")).toEqual([]);
  });

  it("refuses malformed subscriptions: http, wrong key sizes, junk", () => {
    const good = newPushSubscriber().keys;
    const bad = [
      { endpoint: "http://push.example/x", keys: good },
      { endpoint: "https://push.example/x", keys: { ...good, p256dh: good.auth } },
      { endpoint: "https://push.example/x", keys: { ...good, auth: "AAAA" } },
      { endpoint: `https://push.example/${"a".repeat(3000)}`, keys: good },
      { endpoint: "https://push.example/x" },
      "junk",
    ];
    for (const input of bad) expect(PushSubscriptionInput.safeParse(input).success).toBe(false);
    expect(PushSubscriptionInput.safeParse({ endpoint: "https://push.example/x", keys: good }).success).toBe(
      true,
    );
  });
});

describe("the fake push service", () => {
  it("refuses a JWT not signed by the key it names, and one for another audience", async () => {
    const subscriber = newPushSubscriber();
    const { id, endpoint } = push.subscribe(subscriber);
    const [mine, other] = await Promise.all([
      PushStore.inMemory().vapidKeys(),
      PushStore.inMemory().vapidKeys(),
    ]);
    const forged = {
      subject: "mailto:x@example.test",
      publicKey: mine.publicKey,
      privateKey: other.privateKey,
    };
    const refused = await webpush
      .sendNotification({ endpoint, keys: subscriber.keys }, "hi", { vapidDetails: forged, agent })
      .catch((error: { statusCode?: number }) => error.statusCode);
    expect(refused).toBe(400);
    expect(push.refused.at(-1)).toMatch(/signature/);
    expect(push.received.some((received) => received.id === id)).toBe(false);

    const { headers } = await webpush.generateRequestDetails({ endpoint, keys: subscriber.keys }, "hi", {
      vapidDetails: { subject: "mailto:x@example.test", ...mine },
    });
    expect(() =>
      checkVapid(String(headers.Authorization), "https://elsewhere.example", Date.now() / 1000),
    ).toThrow(/aud/);
  });
});
