import { generateKeyPairSync } from "node:crypto";
import {
  connectFakeNode,
  fcParams,
  makeNodeKey,
  signChallenge,
  waitFor,
  watchProcessErrors,
} from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ADMIN, askJoinCode, echo, pairedNode, startPairingRouter } from "./pairing-support.ts";
import { onCleanup } from "./support.ts";

// The key handshake under attack, over real sockets: random nonces, keys and signatures, keys of
// other algorithms, truncated and replayed frames. Nothing crashes, nothing is admitted, and the
// real node is untouched throughout.

const base64 = fc.uint8Array({ maxLength: 120 }).map((bytes) => Buffer.from(bytes).toString("base64"));

async function fuzzRouter() {
  const watch = watchProcessErrors();
  onCleanup(() => watch.stop());
  const t = await startPairingRouter();
  const { node: real, key } = await pairedNode(t, "home-pc");
  echo(real, "home-pc");
  return { t, real, key, watch };
}

/**
 * Sends one raw register text on a fresh connection named for `nodeId`; resolves with what came
 * back, if anything ("http/401" for an id the router refuses before the upgrade).
 */
async function attempt(url: string, nodeId: string, build: (nonce: string) => string): Promise<string> {
  const node = await connectFakeNode({ url, nodeId }).catch((error: Error) => error.message);
  if (typeof node === "string") return `http/${node}`;
  const challenge = await node.inbox.next("challenge");
  node.send(build(String(challenge.nonce)));
  const closed = await node.closed;
  const answer = node.inbox.frames.find((f) => f.type === "register_ok" || f.type === "register_error");
  return `${answer?.type ?? "none"}/${closed.code}`;
}

const register = (nodeId: string, auth: unknown) =>
  JSON.stringify({
    type: "register",
    node_id: nodeId,
    display_name: nodeId,
    serves_users: [],
    working_dir: "/",
    capabilities: [],
    protocol_versions: [3],
    auth,
  });

describe("key handshake fuzz", () => {
  it("random public keys, signatures and join codes for paired and unknown ids: never admitted", async () => {
    const { t, watch } = await fuzzRouter();
    const joinCode = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 60 }),
      fc.stringMatching(/^[a-z-]{1,10}:[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("home-pc", "other-pc"),
        base64,
        base64,
        joinCode,
        async (nodeId, publicKey, signature, code) => {
          fc.pre(publicKey.length > 0 && signature.length > 0);
          const auth = { public_key: publicKey, signature, ...(code ? { join_code: code } : {}) };
          const outcome = await attempt(t.nodeUrl, nodeId, () => register(nodeId, auth));
          expect(outcome).not.toMatch(/^register_ok/);
        },
      ),
      fcParams({ numRuns: 60 }),
    );
    expect(watch.errors).toEqual([]);
  });

  it("the right key signing the wrong nonce, node id or key is refused", async () => {
    const { t, key } = await fuzzRouter();
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 64 }), async (otherNonce) => {
        const outcome = await attempt(t.nodeUrl, "home-pc", (nonce) => {
          fc.pre(otherNonce !== nonce);
          return register("home-pc", signChallenge(key, otherNonce, "home-pc"));
        });
        expect(outcome).toBe("register_error/4401");
      }),
      fcParams({ numRuns: 25 }),
    );
    const signedForOtherId = await attempt(t.nodeUrl, "home-pc", (nonce) =>
      register("home-pc", signChallenge(key, nonce, "other-pc")),
    );
    expect(signedForOtherId).toBe("register_error/4401");
  });

  it("keys of other algorithms (RSA, P-256, X25519) are refused, not crashed on", async () => {
    const { t, watch } = await fuzzRouter();
    for (const type of ["rsa", "ec", "x25519"] as const) {
      const { publicKey } =
        type === "rsa"
          ? generateKeyPairSync("rsa", { modulusLength: 1024 })
          : type === "ec"
            ? generateKeyPairSync("ec", { namedCurve: "P-256" })
            : generateKeyPairSync("x25519");
      const der = publicKey.export({ type: "spki", format: "der" }).toString("base64");
      const outcome = await attempt(t.nodeUrl, "home-pc", () =>
        register("home-pc", { public_key: der.slice(0, 256), signature: "AAAA" }),
      );
      expect(outcome, type).toMatch(/^register_error\/4401$|^none\/1008$/);
    }
    expect(watch.errors).toEqual([]);
  });

  it("a valid signed register cut anywhere, or sent twice, admits nothing extra; the real node keeps working", async () => {
    const { t, real, watch } = await fuzzRouter();
    const code = await askJoinCode(t, "new-pc");
    const key = makeNodeKey();
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0, max: 0.999, noNaN: true }), async (at) => {
        const outcome = await attempt(t.nodeUrl, "new-pc", (nonce) => {
          const whole = register("new-pc", signChallenge(key, nonce, "new-pc", code));
          return whole.slice(0, Math.floor(whole.length * at));
        });
        expect(outcome).toBe("none/1008");
      }),
      fcParams({ numRuns: 30 }),
    );
    // The code was never used by the truncated attempts: it still pairs, once.
    const node = await connectFakeNode({ url: t.nodeUrl, nodeId: "new-pc" });
    onCleanup(() => node.kill());
    expect(await node.registerWithKey(key, "new-pc", { joinCode: code })).toMatchObject({
      type: "register_ok",
    });
    node.send(register("new-pc", signChallenge(key, "whatever", "new-pc", code)));
    expect(await node.inbox.next("error")).toMatchObject({ code: "BAD_FRAME" });

    expect(real.socket.readyState).toBe(real.socket.OPEN);
    t.chat.receive({ userId: ADMIN, text: "@home-pc ping" });
    await waitFor(() => t.chat.textsFor(ADMIN).some((text) => text.endsWith("home-pc: ping")));
    expect(watch.errors).toEqual([]);
  });
});
