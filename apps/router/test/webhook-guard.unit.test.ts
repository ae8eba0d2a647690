import { sameSecret } from "@phonework/runtime";
import { createManualClock, createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { guardWebhook, outsideWindow } from "../src/platforms/webhook/guard-webhook.ts";
import type { Verification, WebhookVerifier } from "../src/platforms/webhook/webhook-verifier.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";

// The rules every platform's webhook shares, with a scripted verifier in place of a platform.

const request = { headers: {}, rawBody: "{}" };
const MINUTE = 60_000;

function guarded(
  answers: Array<Verification<string>>,
  deliver: (event: string) => void | Promise<void> = () => {},
) {
  const clock = createManualClock(1_700_000_000_000);
  const { logger, lines } = createTestLogger("info");
  const verifier: WebhookVerifier<string> = {
    verify: () => answers.shift() ?? { kind: "rejected", status: 400, reason: "no more answers" },
  };
  const delivered: string[] = [];
  const endpoint = guardWebhook({
    path: "/webhook/test",
    verifier,
    maxAgeMs: 5 * MINUTE,
    clock,
    seen: SeenEvents.inMemory(86_400_000, () => clock.now()),
    acknowledge: { status: 200, body: { ok: true } },
    async deliver(event) {
      delivered.push(event);
      await deliver(event);
    },
    logger,
  });
  return { endpoint, clock, delivered, lines };
}

describe("the signed-time window", () => {
  it("accepts up to the limit either way and names how far off a refused time is", () => {
    const now = 1_700_000_000_000;
    expect(outsideWindow(now - 300_000, now, 300_000)).toBeUndefined();
    expect(outsideWindow(now + 300_000, now, 300_000)).toBeUndefined();
    expect(outsideWindow(now - 301_000, now, 300_000)).toBe("signed timestamp is 301 s old (limit 300 s)");
    expect(outsideWindow(now + 301_000, now, 300_000)).toBe(
      "signed timestamp is 301 s in the future (limit 300 s)",
    );
    expect(outsideWindow(Number.NaN, now, 300_000)).toBe("signed timestamp is not a time");
  });
});

describe("guardWebhook", () => {
  it("answers a rejection with its status and reason, logged at warn", async () => {
    const { endpoint, delivered, lines } = guarded([
      { kind: "rejected", status: 401, reason: "bad signature" },
    ]);
    expect(await endpoint.handle(request)).toEqual({ status: 401, body: { error: "bad signature" } });
    expect(delivered).toEqual([]);
    expect(lines()).toContainEqual(
      expect.objectContaining({ level: 40, msg: "webhook rejected", reason: "bad signature", status: 401 }),
    );
  });

  it("passes a handshake's answer through and delivers nothing", async () => {
    const response = { status: 200, body: { challenge: "c" } };
    const { endpoint, delivered } = guarded([{ kind: "handshake", response }]);
    expect(await endpoint.handle(request)).toEqual(response);
    expect(delivered).toEqual([]);
  });

  it("refuses an authenticated event signed outside the window, in either direction", async () => {
    const now = 1_700_000_000_000;
    const event = (signedAtMs: number, id: string): Verification<string> => ({
      kind: "event",
      event: id,
      signedAtMs,
      ids: [id],
    });
    const { endpoint, delivered, lines } = guarded([
      event(now - 2 * 86_400_000, "old"),
      event(now + 6 * MINUTE, "future"),
      event(now - 4 * MINUTE, "fresh"),
    ]);
    expect((await endpoint.handle(request)).status).toBe(401);
    expect((await endpoint.handle(request)).status).toBe(401);
    expect(await endpoint.handle(request)).toEqual({ status: 200, body: { ok: true } });
    expect(delivered).toEqual(["fresh"]);
    expect(
      lines()
        .filter((line) => line.msg === "webhook rejected")
        .map((line) => line.reason),
    ).toEqual([
      "signed timestamp is 172800 s old (limit 300 s)",
      "signed timestamp is 360 s in the future (limit 300 s)",
    ]);
  });

  it("acknowledges an event seen before without delivering it again", async () => {
    const now = 1_700_000_000_000;
    const twice: Verification<string> = { kind: "event", event: "e", signedAtMs: now, ids: ["x:e1", "x:m1"] };
    const sameMessage: Verification<string> = {
      kind: "event",
      event: "e2",
      signedAtMs: now,
      ids: ["x:e2", "x:m1"],
    };
    const { endpoint, delivered } = guarded([twice, { ...twice }, sameMessage]);
    for (let i = 0; i < 3; i++) expect((await endpoint.handle(request)).status).toBe(200);
    expect(delivered).toEqual(["e"]);
  });

  it("an event that could not be stored gets 500 and is forgotten, so the platform's resend is taken", async () => {
    const now = 1_700_000_000_000;
    let failures = 1;
    const { endpoint, lines, delivered } = guarded(
      [
        { kind: "event", event: "boom", signedAtMs: now, ids: ["x:1"] },
        { kind: "event", event: "boom", signedAtMs: now, ids: ["x:1"] },
        { kind: "event", event: "boom", signedAtMs: now, ids: ["x:1"] },
      ],
      async () => {
        if (failures-- > 0) throw new Error("disk full");
      },
    );
    expect((await endpoint.handle(request)).status).toBe(500);
    expect(lines()).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: "webhook event could not be stored; the platform will resend it",
      }),
    );
    expect((await endpoint.handle(request)).status).toBe(200); // the resend, taken
    expect((await endpoint.handle(request)).status).toBe(200); // a replay of it, dropped
    expect(delivered).toEqual(["boom", "boom"]);
  });
});

describe("sameSecret", () => {
  it("matches only the exact string, whatever the length or type presented", () => {
    expect(sameSecret("vtoken", "vtoken")).toBe(true);
    for (const presented of [
      "vtoke",
      "vtokenx",
      "VTOKEN",
      "",
      " vtoken",
      undefined,
      null,
      42,
      ["vtoken"],
      {},
    ])
      expect(sameSecret(presented, "vtoken"), JSON.stringify(presented)).toBe(false);
  });
});
