import { newPushSubscriber, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { PushStore } from "../src/console/push/push-store.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { consoleLinkFor, fakeAssets } from "./console-support.ts";
import { startTestRouter } from "./support.ts";

// The page's Web Push API over HTTP (fastify's inject): the VAPID key, a subscription kept for the
// sign-in and dropped with it (sign-out, `/console logout-all`); strangers, other origins and junk
// are refused. The store is read through router.db itself.

describe("the console's push subscriptions", () => {
  it("keeps a signed-in page's subscription, refuses the rest, and drops it on sign-out and logout-all", async () => {
    const t = await startTestRouter({}, { consoleAssets: fakeAssets() });
    const host = new URL(t.url).host;
    const origin = t.url;
    const store = new PushStore(openRouterDatabase(routerDatabasePath(String(t.config.DATA_DIR))));
    const signIn = async () => {
      const code = new URL(await consoleLinkFor(t.chat, "alice")).searchParams.get("code") ?? "";
      const response = await t.router.app.inject({
        method: "POST",
        url: "/console/login",
        headers: { host, origin, "content-type": "application/x-www-form-urlencoded" },
        payload: `code=${code}`,
      });
      return String(response.headers["set-cookie"]).split(";")[0] ?? "";
    };
    const subscription = (n: number) => ({
      endpoint: `https://push.example/sub-${n}`,
      keys: newPushSubscriber().keys,
    });
    const post = (cookie: string, body: unknown, headers: Record<string, string> = { origin }) =>
      t.router.app.inject({
        method: "POST",
        url: "/console/push/subscription",
        headers: { host, cookie, "content-type": "application/json", ...headers },
        payload: typeof body === "string" ? body : JSON.stringify(body),
      });
    const endpoints = () =>
      store
        .forUser("memory:alice") // the memory chat's qualified id
        .map((row) => row.endpoint)
        .sort();

    const cookie = await signIn();
    const key = await t.router.app.inject({
      method: "GET",
      url: "/console/push/key",
      headers: { host, cookie },
    });
    expect((key.json() as { publicKey: string }).publicKey).toBe((await store.vapidKeys()).publicKey);
    expect(
      (await t.router.app.inject({ method: "GET", url: "/console/push/key", headers: { host } })).statusCode,
    ).toBe(401);

    expect((await post(cookie, subscription(1))).statusCode).toBe(204);
    expect((await post("", subscription(2))).statusCode).toBe(401); // a stranger
    expect((await post(cookie, subscription(3), {})).statusCode).toBe(403); // no Origin
    expect((await post(cookie, subscription(4), { origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await post(cookie, { ...subscription(5), endpoint: "http://push.example/x" })).statusCode).toBe(
      400,
    );
    expect((await post(cookie, "{not json")).statusCode).toBe(400);
    expect((await post(cookie, { ...subscription(6), pad: "x".repeat(10_000) })).statusCode).toBe(413);
    expect(endpoints()).toEqual(["https://push.example/sub-1"]);

    // Signing out of this browser drops its subscription; another sign-in's stays until logout-all.
    const other = await signIn();
    expect((await post(other, subscription(7))).statusCode).toBe(204);
    await t.router.app.inject({ method: "POST", url: "/console/logout", headers: { host, origin, cookie } });
    expect(endpoints()).toEqual(["https://push.example/sub-7"]);
    await t.chat.receive({ userId: "alice", text: "/console logout-all" });
    await waitFor(() => (endpoints().length === 0 ? true : undefined), {
      message: "logout-all drops the rest",
    });
  });
});
