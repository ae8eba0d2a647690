import { decodeFrame, ErrorCode, Frame, RouterFrame } from "@phonework/protocol";
import {
  deeplyNested,
  type FakeRouter,
  type FakeRouterConnection,
  fcParams,
  framesAnswering,
  frameTypes,
  garbageFrames,
  nearValidFrames,
  nextFrame,
  startFakeRouter,
  validFrames,
  watchProcessErrors,
} from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MessageHandler } from "../src/contracts/message-handler.ts";
import type { Host } from "../src/create-host.ts";
import { onCleanup, startHost } from "./support.ts";

// Hostile router→host frames over a real socket, sent by the fake router to a real host: whatever
// arrives, a malformed frame gets a typed error back, nothing crashes or rejects unhandled, and
// the host stays on the same connection and keeps answering (one request stays in flight).

const SECRET = "host-fuzz-secret";
const RUNS = 200;

/** Echoes the text; "slow" waits until released, to keep a request in flight. */
function echoHandler(): MessageHandler & { release(): void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    release: () => release(),
    async handle(request) {
      if (request.text === "slow") await gate;
      return `echo: ${request.text}`;
    },
  };
}

async function hostUnderFire(overrides: Record<string, unknown> = {}) {
  const watch = watchProcessErrors();
  onCleanup(() => watch.stop());
  const router = await startFakeRouter({ secret: SECRET });
  onCleanup(() => router.close());
  const handler = echoHandler();
  const host = startHost(router.url, SECRET, { NODE_ID: "fuzz-host", ...overrides }, { handler });
  await host.ready();
  const link = router.latest();
  link.send(forward("in-flight", "slow"));
  return { router, host, handler, link, watch };
}

const forward = (id: string, text: string) => ({
  type: "forward",
  id,
  user_id: "u1",
  chat_id: "c1",
  platform: "memory",
  text,
});

/**
 * A hostile router may send any heartbeat policy; tiny values legitimately make the host drop a
 * quiet link mid-barrage, so valid `register_ok` frames get at least a sane minimum here (huge
 * values stay, the host caps its watchdog timer). Everything else about them stays random.
 */
function withSaneHeartbeat(raw: string): string {
  const decoded = decodeFrame(raw, RouterFrame);
  if (!decoded.ok || decoded.frame.type !== "register_ok") return raw;
  const { heartbeat_interval_s, heartbeat_timeout_s } = decoded.frame;
  return JSON.stringify({
    ...decoded.frame,
    heartbeat_interval_s: Math.max(heartbeat_interval_s, 30),
    heartbeat_timeout_s: Math.max(heartbeat_timeout_s, 10),
  });
}

/** The host's answer to one frame: a BAD_FRAME error if malformed, the handler's reply to a forward, a pong to a ping. */
async function expectTypedAnswer(link: FakeRouterConnection, raw: string): Promise<void> {
  const decoded = decodeFrame(raw, RouterFrame);
  const frame = decoded.ok ? decoded.frame : undefined;
  const reply =
    frame?.type === "forward"
      ? nextFrame(link.socket, (f) => f.type === "forward_response" && f.id === frame.id)
      : undefined;
  const answer = await framesAnswering(link, raw);
  const errors = answer.filter((f) => f.type === "error");
  if (!frame) {
    expect(errors).toHaveLength(1);
    expect(ErrorCode.safeParse(errors[0]?.code).success).toBe(true);
    expect(errors[0]).toMatchObject({ type: "error", code: "BAD_FRAME", message: expect.any(String) });
    expect(errors[0]).not.toHaveProperty("id");
    return;
  }
  expect(errors).toEqual([]);
  if (frame.type === "ping") expect(answer).toContainEqual({ type: "pong", ts: frame.ts });
  // A repeated correlation id gets the first answer again (the id is the idempotency key).
  if (frame.type === "forward") expect(await reply).toMatchObject({ text: expect.stringMatching(/^echo: /) });
}

/** Still on its first connection, the request in flight is answered, and a new one round-trips. */
async function expectHostStillServes(setup: Awaited<ReturnType<typeof hostUnderFire>>) {
  const { router, host, handler, link, watch } = setup;
  expect(router.connections).toHaveLength(1);
  expect(host.link.state).toBe("registered");
  const inFlight = nextFrame(link.socket, (f) => f.type === "forward_response" && f.id === "in-flight");
  handler.release();
  expect(await inFlight).toMatchObject({ text: "echo: slow" });
  await expectForwardAnswered(link, "after the barrage");
  expect(watch.errors).toEqual([]);
}

async function expectForwardAnswered(link: FakeRouterConnection, text: string) {
  const answer = nextFrame(link.socket, (f) => f.type === "forward_response" && f.id === text);
  link.send(forward(text, text));
  expect(await answer).toMatchObject({ text: `echo: ${text}` });
}

/** The host dialled in again after its socket was closed, and answers on the new connection. */
async function expectReconnectedAndServing(router: FakeRouter, host: Host) {
  await router.waitForRegistrations(2);
  await host.ready();
  await expectForwardAnswered(router.latest(), "after reconnecting");
}

describe("host under hostile router frames", () => {
  const allTypes = frameTypes(Frame);

  it.each([
    ["valid frames of every router frame type", validFrames(RouterFrame).map((f) => JSON.stringify(f))],
    ["fixtures with one field broken", nearValidFrames(RouterFrame, allTypes)],
    ["garbage text and random JSON", garbageFrames(RouterFrame)],
  ])("%s: typed errors, no crash, the host stays connected and answers", async (_name, frames) => {
    const setup = await hostUnderFire();
    await fc.assert(
      fc.asyncProperty(frames.map(withSaneHeartbeat), (raw) => expectTypedAnswer(setup.link, raw)),
      fcParams({ numRuns: RUNS }),
    );
    await expectHostStillServes(setup);
  });

  it("binary frames and deeply nested JSON do not disturb the host", async () => {
    const setup = await hostUnderFire();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        // The host ignores binary frames; what matters is that it is still there to refuse the probe.
        await framesAnswering(setup.link, Buffer.from(bytes));
      }),
      fcParams({ numRuns: 30 }),
    );
    for (const raw of [deeplyNested(200_000), deeplyNested(200_000, "object")])
      await expectTypedAnswer(setup.link, raw);
    // Deep nesting in a field the schema does not know is ignored, like any extra field.
    await expectTypedAnswer(setup.link, `{"type":"ping","ts":7,"extra":${deeplyNested(200_000)}}`);
    await expectHostStillServes(setup);
  });

  it("a frame over the host's MAX_PAYLOAD_BYTES closes the link with 1009; the host reconnects", async () => {
    const max = 128 * 1024;
    const { router, host, link, watch } = await hostUnderFire({
      MAX_PAYLOAD_BYTES: max,
      MAX_FILE_BYTES: 1024,
    });
    const pingOfSize = (bytes: number) => {
      const bare = JSON.stringify({ type: "ping", ts: 1, pad: "" });
      return JSON.stringify({ type: "ping", ts: 1, pad: "x".repeat(bytes - bare.length) });
    };
    // Exactly the limit is still a frame; one byte more is not.
    expect(await framesAnswering(link, pingOfSize(max))).toContainEqual({ type: "pong", ts: 1 });
    const closed = new Promise<number>((resolve) => link.socket.once("close", resolve));
    link.socket.send(pingOfSize(max + 1));
    expect(await closed).toBe(1009);
    await expectReconnectedAndServing(router, host);
    expect(watch.errors).toEqual([]);
  });

  it("text that is not UTF-8 closes the link with 1007 (the WebSocket rule); the host reconnects", async () => {
    const { router, host, link, watch } = await hostUnderFire();
    const closed = new Promise<number>((resolve) => link.socket.once("close", resolve));
    link.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect(await closed).toBe(1007);
    await expectReconnectedAndServing(router, host);
    expect(watch.errors).toEqual([]);
  });
});
