import { randomBytes } from "node:crypto";
import { placeholderConsolePage, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { startTestRouter, type TestRouter, tempDataDir } from "./support.ts";

// The console's sign-in behind a reverse proxy, over real sockets. Every request comes from
// 127.0.0.1 (the proxy); who the client is, is what X-Forwarded-For says — believed only when
// TRUST_PROXY names the proxy. An attacker who rotates addresses (or writes the header himself)
// still cannot try one code more than CONSOLE_LOGIN_PER_CODE times.

async function start(overrides: Record<string, unknown>) {
  return startTestRouter(overrides, { consoleAssets: placeholderConsolePage(tempDataDir()) });
}

/** A sign-in POST as a browser sends it (same origin unless told), through the "proxy" as `client`. */
async function signIn(t: TestRouter, code: string, client: string, origin = t.url): Promise<number> {
  const response = await fetch(`${t.url}/console/login`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin,
      "x-forwarded-for": client,
    },
    body: `code=${encodeURIComponent(code)}`,
    redirect: "manual",
  });
  await response.arrayBuffer();
  return response.status;
}

/** A code nobody was given: each guess is a new one. */
const guess = () => randomBytes(32).toString("base64url");

/** The code of a fresh `/console` link for `user`. */
async function linkCode(t: TestRouter, user: string): Promise<string> {
  const before = t.chat.textsFor(user).length;
  t.chat.receive({ userId: user, text: "/console" });
  return waitFor(() =>
    t.chat
      .textsFor(user)
      .slice(before)
      .map((text) => /\/console\/login\?code=([\w-]+)/.exec(text)?.[1])
      .find(Boolean),
  );
}

describe("the console sign-in behind a proxy", () => {
  it("with TRUST_PROXY naming the proxy, the limit is per forwarded address; with it off, a forged X-Forwarded-For changes nothing", async () => {
    const behind = await start({ TRUST_PROXY: "127.0.0.1", CONSOLE_LOGIN_PER_MIN: 3 });
    const attacker: number[] = [];
    for (let i = 0; i < 4; i++) attacker.push(await signIn(behind, guess(), "203.0.113.7"));
    expect(attacker).toEqual([403, 403, 403, 429]);
    // Everyone else behind the same proxy still signs in.
    expect(await signIn(behind, await linkCode(behind, "alice"), "198.51.100.20")).toBe(303);

    const direct = await start({ CONSOLE_LOGIN_PER_MIN: 3 });
    const forged: number[] = [];
    for (let i = 0; i < 4; i++) forged.push(await signIn(direct, guess(), `203.0.113.${i}`));
    expect(forged).toEqual([403, 403, 403, 429]);
  });

  it("a code tried CONSOLE_LOGIN_PER_CODE times is burned, whatever addresses the tries come from", async () => {
    const t = await start({
      TRUST_PROXY: "127.0.0.0/8",
      CONSOLE_LOGIN_PER_MIN: 100,
      CONSOLE_LOGIN_PER_CODE: 3,
    });
    const code = await linkCode(t, "alice");
    const tries: number[] = [];
    // From another site's page: refused without using the code up, so only the count stops it.
    for (let i = 0; i < 5; i++) tries.push(await signIn(t, code, `203.0.113.${i}`, "https://evil.example"));
    expect(tries).toEqual([403, 403, 403, 429, 429]);
    expect(await signIn(t, code, "198.51.100.20")).toBe(429); // its owner, too late
    expect(t.logs().filter((line) => line.msg === "console login code tried too often; burned")).toHaveLength(
      1,
    );
    // Another code is untouched.
    expect(await signIn(t, await linkCode(t, "alice"), "198.51.100.20")).toBe(303);
  });

  it("TRUST_PROXY takes off, on, or addresses and CIDR ranges, and names what it cannot read", async () => {
    const issue = (value: string) =>
      RouterConfigSchema.safeParse({ TRUST_PROXY: value }).error?.issues.map((i) => [i.path, i.message]);
    expect(issue("10.0.0.0/33, proxy.example")).toEqual([
      [
        ["TRUST_PROXY"],
        "must be off, on, or proxy addresses and CIDR ranges (not 10.0.0.0/33, proxy.example)",
      ],
    ]);
    expect(issue("127.0.0.1, 10.0.0.0/8, ::1, fd00::/8")).toBeUndefined();
    const on = await start({ TRUST_PROXY: "on", CONSOLE_LOGIN_PER_MIN: 1 });
    expect([await signIn(on, guess(), "192.0.2.1"), await signIn(on, guess(), "192.0.2.2")]).toEqual([
      403, 403,
    ]);
  });
});
