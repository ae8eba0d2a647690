import { createPublicKey, verify } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { nodeAuthPayload } from "@phonework/protocol";
import { makeTempDir, startFakeRouter, waitFor } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { loadIdentity, newIdentity } from "../src/identity/node-identity.ts";
import { onCleanup, startHost } from "./support.ts";

// The host's link against a fake router over real sockets.

const SECRET = "host-test-secret";
const host = (
  url: string,
  overrides: Record<string, unknown> = {},
  deps: Parameters<typeof startHost>[3] = {},
) => startHost(url, SECRET, overrides, deps);

async function fakeRouter(options: Partial<Parameters<typeof startFakeRouter>[0]> = {}) {
  const router = await startFakeRouter({ secret: SECRET, ...options });
  onCleanup(() => router.close());
  return router;
}

describe("router link", () => {
  it("registers with its node id, name, users, working dir and protocol versions", async () => {
    const router = await fakeRouter();
    const h = host(router.url, { DISPLAY_NAME: "My Laptop", SERVES_USERS: "ou_a, ou_b" });
    await h.ready();
    expect(router.registrations[0]).toMatchObject({
      type: "register",
      node_id: "laptop",
      display_name: "My Laptop",
      serves_users: ["ou_a", "ou_b"],
      // `terminal` too once node-pty has loaded, which may be before or after this registration.
      capabilities: expect.arrayContaining([
        "shell",
        "file_ops",
        "background",
        "claude_code",
        "codex",
        "overview",
      ]),
      protocol_versions: [3],
      sessions: [],
      commands: expect.arrayContaining([expect.objectContaining({ usage: "/shell <command>" })]),
    });
    const capabilities = router.registrations[0]?.capabilities as string[];
    expect(capabilities.filter((c) => c !== "terminal")).toEqual([
      "shell",
      "file_ops",
      "background",
      "claude_code",
      "codex",
      "overview",
    ]);
  });

  it("a host with no SERVES_USERS serves everyone (empty list)", async () => {
    const router = await fakeRouter();
    await host(router.url).ready();
    expect(router.registrations[0]?.serves_users).toEqual([]);
  });

  it("answers ping with pong", async () => {
    const router = await fakeRouter();
    await host(router.url).ready();
    router.latest().send({ type: "ping", ts: 1234 });
    expect(await router.latest().inbox.next("pong")).toEqual({ type: "pong", ts: 1234 });
  });

  it("answers a forwarded message under its correlation id", async () => {
    const router = await fakeRouter();
    await host(router.url).ready();
    router
      .latest()
      .send({ type: "forward", id: "r1", user_id: "u", chat_id: "c", platform: "t", text: "hi" });
    const answer = await router.latest().inbox.next("forward_response");
    expect(answer).toMatchObject({ id: "r1" });
    expect(String(answer.text)).toContain('No model is configured on node "laptop"');
  });

  it("turns a handler failure into a durable INTERNAL error answer, the same for a duplicate forward", async () => {
    const router = await fakeRouter();
    let runs = 0;
    const handler = {
      handle: async () => {
        runs++;
        throw new Error("disk on fire");
      },
    };
    const h = host(router.url, {}, { handler });
    await h.ready();
    const forward = { type: "forward", id: "r2", user_id: "u", chat_id: "c", platform: "t", text: "x" };
    router.latest().send(forward);
    const failure = {
      id: "r2",
      text: "the host failed: disk on fire",
      error: { code: "INTERNAL", message: "the host failed: disk on fire" },
      delivery_id: "reply-r2",
    };
    expect(await router.latest().inbox.next("forward_response")).toMatchObject(failure);
    expect(h.outbox.pending()).toBe(1); // kept until the router acknowledges it

    router.latest().send(forward); // the router asks again: the first outcome, not a second run
    expect(await router.latest().inbox.next("forward_response")).toMatchObject(failure);
    expect(runs).toBe(1);
    router.latest().send({ type: "push_ack", delivery_id: "reply-r2", ok: true });
    await waitFor(() => h.outbox.pending() === 0);
  });

  it("aborts the handler when the router cancels the request", async () => {
    const router = await fakeRouter();
    let aborted: unknown;
    const handler = {
      handle: (_r: unknown, ctx: { signal: AbortSignal }) =>
        new Promise<string>((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        ),
    };
    await host(router.url, {}, { handler }).ready();
    router.latest().send({ type: "forward", id: "r3", user_id: "u", chat_id: "c", platform: "t", text: "x" });
    router.latest().send({ type: "cancel", id: "r3", reason: "timed out" });
    expect(await router.latest().inbox.next("error")).toMatchObject({ id: "r3", code: "CANCELLED" });
    expect((aborted as Error).message).toBe("timed out");
  });

  it("answers a malformed router frame with BAD_FRAME and stays connected", async () => {
    const router = await fakeRouter();
    await host(router.url).ready();
    router.latest().socket.send("garbage");
    expect(await router.latest().inbox.next("error")).toMatchObject({ code: "BAD_FRAME" });
    router.latest().send({ type: "ping", ts: 1 });
    expect(await router.latest().inbox.next("pong")).toMatchObject({ ts: 1 });
  });

  it("reconnects after the connection drops and registers again, forever", async () => {
    const router = await fakeRouter();
    const h = host(router.url);
    await h.ready();
    for (let round = 2; round <= 4; round++) {
      router.dropAll();
      await router.waitForRegistrations(round);
    }
    await h.ready();
    expect(h.link.state).toBe("registered");
  });

  it("keeps retrying when the router refuses the secret (401)", async () => {
    const router = await fakeRouter({ secret: "not-the-hosts-secret" });
    host(router.url);
    await waitFor(() => router.refused >= 3, { message: "three refused attempts" });
    expect(router.registrations).toEqual([]);
  });

  it("drops a router that goes silent past the heartbeat policy and reconnects", async () => {
    const router = await fakeRouter({ heartbeatIntervalS: 0.05, heartbeatTimeoutS: 0.05 });
    await host(router.url).ready();
    // The fake router never pings: the host must notice the silence on its own.
    await router.waitForRegistrations(2, 5000);
  });

  it("keeps a router that keeps talking: every frame restarts the silence watchdog", async () => {
    // 750 ms of silence drops the router: wide enough for a loaded machine's stalls between pings.
    const router = await fakeRouter({ heartbeatIntervalS: 0.25, heartbeatTimeoutS: 0.25 });
    await host(router.url).ready();
    const start = Date.now();
    // A ping every 75 ms for twice the silence that would drop it.
    for (let ts = 0; Date.now() - start < 1500; ts++) {
      router.latest().send({ type: "ping", ts });
      await router.latest().inbox.next(["pong"]);
      await new Promise((resolve) => setTimeout(resolve, 75));
    }
    expect(router.registrations).toHaveLength(1);
  });

  it("a forward delivered twice (again after a reconnect) runs once; both deliveries get the first result", async () => {
    const router = await fakeRouter();
    let runs = 0;
    const h = host(
      router.url,
      {},
      {
        handler: {
          handle: async (request) => `answer #${++runs} to ${request.text}`,
        },
      },
    );
    await h.ready();
    const forward = {
      type: "forward",
      id: "req-1",
      user_id: "u1",
      chat_id: "c1",
      platform: "memory",
      text: "deploy",
    };
    router.latest().send(forward);
    const first = await router.latest().inbox.next(["forward_response"]);
    expect(first).toMatchObject({
      id: "req-1",
      text: "answer #1 to deploy",
      delivery_id: "reply-req-1",
      user_id: "u1",
    });

    router.dropAll();
    await router.waitForRegistrations(2);
    // Not acknowledged on the first link: the outbox resends it after the reconnect…
    expect(await router.latest().inbox.next(["forward_response"])).toMatchObject({
      id: "req-1",
      text: "answer #1 to deploy",
    });
    router.latest().send({ type: "push_ack", delivery_id: "reply-req-1", ok: true });
    await waitFor(() => h.outbox.pending() === 0);
    // …and the same request arriving again is not run again: it gets the first result.
    router.latest().send(forward);
    expect(await router.latest().inbox.next(["forward_response"])).toMatchObject({
      id: "req-1",
      text: "answer #1 to deploy",
    });
    expect(runs).toBe(1);
  });

  it("pushed items wait in the outbox while the link is down and go out, in order, after it returns", async () => {
    const router = await fakeRouter();
    const h = host(router.url);
    await h.ready();
    router.dropAll();
    h.push({ type: "notify", user_id: "u1", text: "first" });
    h.push({ type: "notify", user_id: "u1", text: "second" });
    expect(h.outbox.pending()).toBe(2);
    await router.waitForRegistrations(2);
    const a = await router.latest().inbox.next(["notify"]);
    const b = await router.latest().inbox.next(["notify"]);
    expect([a.text, b.text]).toEqual(["first", "second"]);
    expect(a.delivery_id).not.toBe(b.delivery_id);
    router.latest().send({ type: "push_ack", delivery_id: a.delivery_id, ok: true });
    router.latest().send({ type: "push_ack", delivery_id: b.delivery_id, ok: true });
    await waitFor(() => h.outbox.pending() === 0);
  });

  it("a push the router answers RATE_LIMITED stays in the outbox and is sent again after retry_after_s", async () => {
    const router = await fakeRouter();
    const h = host(router.url);
    await h.ready();
    h.push({ type: "notify", user_id: "u1", text: "later, please" });
    const first = await router.latest().inbox.next(["notify"]);
    const refusedAt = Date.now();
    router.latest().send({
      type: "error",
      code: "RATE_LIMITED",
      delivery_id: first.delivery_id,
      retry_after_s: 1,
      message: "too many pushes",
    });
    const again = await router.latest().inbox.next(["notify"], () => true, 5000);
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(900);
    expect(again).toMatchObject({ delivery_id: first.delivery_id, text: "later, please" });
    expect(h.outbox.pending()).toBe(1);
    router.latest().send({ type: "push_ack", delivery_id: first.delivery_id, ok: true });
    await waitFor(() => h.outbox.pending() === 0);
  });

  it("signs the router's challenge with its key, and presents a join code only until it is accepted", async () => {
    const router = await fakeRouter({ secret: undefined });
    const dir = makeTempDir();
    onCleanup(dir.remove);
    const dataDir = dir.path;
    const identity = newIdentity(dataDir, "laptop", "laptop:AAAA-BBBB-CCCC-DDDD");
    const h = host(router.url, { ROUTER_SECRET: undefined, DATA_DIR: dataDir }, { identity });
    await h.ready();
    const [first] = router.registrations as Array<{ auth: Record<string, string>; node_id: string }>;
    expect(first?.auth.join_code).toBe("laptop:AAAA-BBBB-CCCC-DDDD");
    const key = createPublicKey({
      key: Buffer.from(identity.publicKey, "base64"),
      format: "der",
      type: "spki",
    });
    const payload = nodeAuthPayload(router.nonces[0] ?? "", "laptop", identity.publicKey);
    expect(verify(null, Buffer.from(payload), key, Buffer.from(first?.auth.signature ?? "", "base64"))).toBe(
      true,
    );
    // Accepted: the key is saved (owner-only) and the code is never sent again.
    expect(statSync(join(dataDir, "host", "identity.json")).mode & 0o777).toBe(0o600);
    expect(loadIdentity(dataDir)?.publicKey).toBe(identity.publicKey);
    router.dropAll();
    await router.waitForRegistrations(2);
    const second = router.registrations[1] as { auth: Record<string, string> };
    expect(second.auth.join_code).toBeUndefined();
    const payload2 = nodeAuthPayload(router.nonces[1] ?? "", "laptop", identity.publicKey);
    expect(verify(null, Buffer.from(payload2), key, Buffer.from(second.auth.signature ?? "", "base64"))).toBe(
      true,
    );
  });
});
