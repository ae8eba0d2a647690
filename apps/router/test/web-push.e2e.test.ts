import { join } from "node:path";
import { newPushSubscriber, repoRoot, startFakeOpenAI, startFakePush, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { fakeTelegram, scope, startHost, startRouter, telegramChat } from "./telegram-e2e-support.ts";

// The done-when for Web Push, over real processes: `phonework router` (Telegram on the fake
// Bot API, the console on) and `phonework host`; a Telegram user signs in to the console from the
// chat link, turns notifications on for this phone (a subscription on the fake push service), and
// closes the page; a background task they asked for finishing is exactly one push, its summary
// and not its output. The router trusts the fake push service's test CA through NODE_EXTRA_CA_CERTS.

const CA = join(repoRoot, "packages", "testkit", "fixtures", "tls", "ca.pem");

describe("Web Push over real processes", () => {
  it("a task finishing with the page closed sends one push", async () => {
    const push = await startFakePush();
    scope.add(() => push.close());
    const model = await startFakeOpenAI();
    scope.add(() => model.close());
    const fake = await fakeTelegram();
    const alice = fake.user({ first_name: "Alice", username: "alice" });
    const router = await startRouter(fake, { ALLOWED_USERS: String(alice.id), NODE_EXTRA_CA_CERTS: CA });
    await startHost(router, "work-srv", {
      SERVES_USERS: String(alice.id),
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
    });
    const chat = telegramChat(fake, alice);

    // Signs in from the chat's link, and turns notifications on (what the page does; no page stays open).
    const link = (await chat.waitForBot(/\/console\/login\?code=/, chat.send("/console").message?.message_id))
      .text;
    const code = /code=([\w-]+)/.exec(link ?? "")?.[1] ?? "";
    const origin = router.url;
    const login = await fetch(`${router.url}/console/login`, {
      method: "POST",
      headers: { origin, "content-type": "application/x-www-form-urlencoded" },
      body: `code=${code}`,
      redirect: "manual",
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/=/);
    const subscriber = newPushSubscriber();
    const { id, endpoint } = push.subscribe(subscriber);
    const subscribed = await fetch(`${router.url}/console/push/subscription`, {
      method: "POST",
      headers: { origin, cookie, "content-type": "application/json" },
      body: JSON.stringify({ endpoint, keys: subscriber.keys }),
    });
    expect(subscribed.status).toBe(204);

    model.script(
      {
        toolCalls: [
          { name: "run_background", arguments: { command: "echo SECRET-OUTPUT-42", description: "build" } },
        ],
      },
      { text: "Started the build in the background." },
    );
    chat.send("run the build in the background");
    await chat.waitForBot(/Task #\S+ done/);
    const pushed = await waitFor(() => push.received.find((got) => got.id === id), {
      message: "the push for the finished task",
      timeoutMs: 20_000,
    });
    const payload = JSON.parse(pushed.payload) as { title: string; body: string };
    expect(payload.title).toBe("Task finished");
    expect(payload.body).toMatch(/^✅ build finished on work-srv \(\d+s\)$/);
    expect(pushed.payload).not.toContain("SECRET-OUTPUT");
    expect(push.received).toHaveLength(1);
  });
});
