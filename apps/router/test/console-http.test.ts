import { join } from "node:path";
import { createManualClock } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { consoleLinkFor, fakeAssets, startTerminalChatRouter } from "./console-support.ts";
import { onCleanup, startTestHost, startTestRouter, tempDataDir } from "./support.ts";

// The console's HTTP side without a browser (fastify's inject): the login exchange, the cookie,
// the security headers, the rate limit, sessions ending. A placeholder page stands in for the build.

async function start(overrides: Record<string, unknown> = {}, clock = createManualClock()) {
  const t = await startTestRouter(overrides, { consoleAssets: fakeAssets(), clock });
  // As a browser would: addressed to the router's own host (the origin check compares with it).
  const host = new URL(t.url).host;
  const inject = (options: {
    method: "GET" | "POST";
    url: string;
    headers?: Record<string, string>;
    payload?: string;
  }) => t.router.app.inject({ ...options, headers: { host, ...options.headers } });
  /** The code of a fresh link for `user`. */
  const code = async (user = "alice") =>
    new URL(await consoleLinkFor(t.chat, user)).searchParams.get("code") ?? "";
  const login = (value: string, headers: Record<string, string> = {}) =>
    inject({
      method: "POST",
      url: "/console/login",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      payload: `code=${encodeURIComponent(value)}`,
    });
  return { ...t, inject, code, login, clock };
}

const cookieOf = (setCookie: string | string[] | undefined) =>
  String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(";")[0] ?? "";

describe("console over HTTP", () => {
  it("/console answers with a one-time link; the link's page signs in only by POST, and sets a strict cookie", async () => {
    const t = await start();
    const link = await consoleLinkFor(t.chat, "alice");
    expect(link).toMatch(new RegExp(`^${t.url}/console/login\\?code=[\\w-]{43}$`));
    const code = new URL(link).searchParams.get("code") ?? "";
    // Opening the link (a chat app's preview does this too) uses nothing up.
    const landing = await t.inject({ method: "GET", url: `/console/login?code=${code}` });
    expect(landing.statusCode).toBe(200);
    expect(landing.body).toContain('action="/console/login"');
    expect(landing.headers["set-cookie"]).toBeUndefined();

    const signedIn = await t.login(code, { origin: t.url });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe("/console/");
    const setCookie = String(signedIn.headers["set-cookie"]);
    expect(setCookie).toMatch(
      /^phonework_console=[\w-]{43}; Path=\/console; Max-Age=604800; HttpOnly; SameSite=Strict$/,
    );

    const page = await t.inject({
      method: "GET",
      url: "/console/",
      headers: { cookie: cookieOf(setCookie) },
    });
    expect(page.body).toContain('<div id="app"></div>');
    const nonce = /name="csp-nonce" content="([0-9a-f]+)"/.exec(page.body)?.[1];
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self'( 'nonce-[0-9a-f]+')?;/); // no 'unsafe-inline' for scripts
    expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("img-src 'self' blob:;"); // the app's icons, a host's raster images; nothing else
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/); // every script is a file
    expect(page.body).not.toMatch(/\son[a-z]+=/); // and no inline handler

    // A link works once.
    const again = await t.login(code, { origin: t.url });
    expect(again.statusCode).toBe(403);
    expect(again.body).toContain("Link not valid");
  });

  it("refuses an expired link, a POST from another origin, and an unknown code", async () => {
    const t = await start();
    const late = await t.code();
    t.clock.advance(t.config.CONSOLE_LINK_TTL_S * 1000);
    expect((await t.login(late)).statusCode).toBe(403);
    const fresh = await t.code();
    expect((await t.login(fresh, { origin: "https://evil.example" })).statusCode).toBe(403);
    expect((await t.login(fresh)).statusCode).toBe(303); // the refused POST did not use it up
    expect((await t.login("A".repeat(43))).statusCode).toBe(403);
    expect((await t.login("short")).statusCode).toBe(403);
  });

  it("rate-limits the login route per address", async () => {
    const t = await start({ CONSOLE_LOGIN_PER_MIN: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.login("A".repeat(43))).statusCode);
    expect(statuses).toEqual([403, 403, 403, 429]);
  });

  it("a session ends when it expires, on sign-out, and with /console logout-all", async () => {
    const t = await start();
    const signIn = async () =>
      cookieOf((await t.login(await t.code(), { origin: t.url })).headers["set-cookie"]);
    const signedIn = async (cookie: string) =>
      (await t.inject({ method: "GET", url: "/console/session", headers: { cookie } })).statusCode === 204;

    const expiring = await signIn();
    t.clock.advance(t.config.CONSOLE_SESSION_TTL_S * 1000 - 1);
    expect(await signedIn(expiring)).toBe(true);
    t.clock.advance(1);
    expect(await signedIn(expiring)).toBe(false);

    const leaving = await signIn();
    const out = await t.inject({
      method: "POST",
      url: "/console/logout",
      headers: { cookie: leaving, origin: t.url },
    });
    expect(out.statusCode).toBe(303);
    expect(String(out.headers["set-cookie"])).toContain("Max-Age=0");
    expect(await signedIn(leaving)).toBe(false);

    const [a, b] = [await signIn(), await signIn()];
    const bobs = cookieOf((await t.login(await t.code("bob"), { origin: t.url })).headers["set-cookie"]);
    await t.chat.receive({ userId: "alice", text: "/console logout-all" });
    await expect
      .poll(() => t.chat.textsFor("alice").at(-1))
      .toContain("Signed out of the console everywhere (2");
    expect([await signedIn(a), await signedIn(b), await signedIn(bobs)]).toEqual([false, false, true]);
    const page = await t.inject({ method: "GET", url: "/console/", headers: { cookie: a } });
    expect(page.body).toContain("Signed out");
  });

  it("links use PUBLIC_URL, and its https makes the cookie Secure", async () => {
    const t = await start({ PUBLIC_URL: "https://router.example.com" });
    expect(await consoleLinkFor(t.chat, "alice")).toMatch(
      /^https:\/\/router\.example\.com\/console\/login\?code=/,
    );
    const signedIn = await t.login(await t.code(), { origin: "https://router.example.com" });
    expect(String(signedIn.headers["set-cookie"])).toMatch(/; Secure$/);
    // The origin check follows PUBLIC_URL, not the address the request came in on.
    expect((await t.login(await t.code(), { origin: t.url })).statusCode).toBe(403);
  });

  it("a link is never posted in a group chat", async () => {
    const t = await start();
    await t.chat.receive({ userId: "alice", chatId: "team", chatType: "group", text: "/console" });
    await expect.poll(() => t.chat.textsFor("alice").at(-1)).toContain("Send /console in a private chat");
    expect(t.chat.textsFor("alice").join("\n")).not.toContain("code=");
  });

  it("CONSOLE=off serves no console and says so in chat", async () => {
    const t = await start({ CONSOLE: "off" });
    expect(t.router.console).toBeUndefined();
    expect((await t.inject({ method: "GET", url: "/console/" })).statusCode).toBe(404);
    await t.chat.receive({ userId: "alice", text: "/console" });
    await expect
      .poll(() => t.chat.textsFor("alice").at(-1))
      .toBe("The web console is off on this router (CONSOLE=off).");
  });

  it("without a built page the link is not offered, and /help lists /console", async () => {
    const t = await startTestRouter({}, { consoleAssets: join(tempDataDir(), "missing") });
    await t.chat.receive({ userId: "alice", text: "/console" });
    await expect.poll(() => t.chat.textsFor("alice").at(-1)).toContain("not built on this router");
    // The router looks for the page when it starts: building alone is not enough.
    expect(t.chat.textsFor("alice").at(-1)).toContain("then restart the router");
    await t.chat.receive({ userId: "alice", text: "/help" });
    await expect
      .poll(() => t.chat.textsFor("alice").at(-1))
      .toContain("/console — a one-time link to the web console");
  });

  it("console requests are logged at debug, other requests at info (over the real socket)", async () => {
    const t = await start();
    for (const path of ["/console/", "/console/session", "/console/assets/console.js", "/health"])
      await (await fetch(`${t.url}${path}`)).arrayBuffer();
    const requests = (message: string) =>
      t
        .logs()
        .filter((line) => line.msg === message)
        .map((line) => ({ level: line.level, url: (line.req as { url?: string } | undefined)?.url }));
    await expect.poll(() => t.logs().filter((line) => line.msg === "request completed").length).toBe(4);
    expect(requests("incoming request")).toEqual([
      { level: 20, url: "/console/" },
      { level: 20, url: "/console/session" },
      { level: 20, url: "/console/assets/console.js" },
      { level: 30, url: "/health" },
    ]);
    expect(
      t
        .logs()
        .filter((line) => line.msg === "request completed")
        .map((line) => line.level),
    ).toEqual([20, 20, 20, 30]);
  });

  it("the terminal chat's user signs in from its /console and gets the console as an admin", async () => {
    const { router, url, type, printedMatch } = await startTerminalChatRouter(fakeAssets());
    await startTestHost(router.nodeUrl).ready();
    type("/console");
    const [, code] = await printedMatch(/\/console\/login\?code=([\w-]+)/);
    const signedIn = await router.app.inject({
      method: "POST",
      url: "/console/login",
      headers: { host: new URL(url).host, "content-type": "application/x-www-form-urlencoded" },
      payload: `code=${code}`,
    });
    const cookie = String(signedIn.headers["set-cookie"]).split(";")[0] ?? "";
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/console/ws`, {
      headers: { cookie, origin: url },
    });
    onCleanup(() => socket.terminate());
    const hello = await new Promise<{ user: string; admin: boolean; nodes: Array<{ id: string }> }>(
      (resolve) => socket.once("message", (data) => resolve(JSON.parse(String(data)))),
    );
    expect(hello).toMatchObject({ user: "terminal:local", admin: true, nodes: [{ id: "home-pc" }] });
  });
});
