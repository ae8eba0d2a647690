import { connect } from "node:net";
import { connectFakeNode, fcParams, nextFrame, waitFor, watchProcessErrors } from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ADMIN, askJoinCode } from "./pairing-support.ts";
import {
  adminHeaders,
  echoHandler,
  onCleanup,
  SECRET,
  startTestHost,
  startTestRouter,
  type TestRouter,
} from "./support.ts";

// Hostile hosts at the door: bad bearer tokens, and `register` frames that are wrong in every way
// the router has to refuse. Over real sockets; afterwards the router still serves /health and a
// good host still registers and answers.

async function routerWatched(overrides: Parameters<typeof startTestRouter>[0] = {}) {
  const watch = watchProcessErrors();
  onCleanup(() => watch.stop());
  return { ...(await startTestRouter(overrides)), watch };
}

/** The HTTP status of an upgrade attempt with this Authorization header (101 when it got through). */
async function upgradeStatus(nodeUrl: string, authorization: string | undefined): Promise<number> {
  try {
    const node = await connectFakeNode({
      url: nodeUrl,
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
    node.close();
    return 101;
  } catch (error) {
    return Number((error as Error).message);
  }
}

/** Sends an upgrade request byte for byte (a ws client refuses to send some of these) and reads the status. */
function rawUpgradeStatus(nodeUrl: string, authorization: Buffer): Promise<number> {
  const { hostname, port, pathname } = new URL(nodeUrl);
  const head = Buffer.concat([
    Buffer.from(
      `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: ",
    ),
    authorization,
    Buffer.from("\r\n\r\n"),
  ]);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`closed without a status line: ${JSON.stringify(received)}`)));
  });
}

async function health(url: string) {
  const response = await fetch(`${url}/health`, adminHeaders);
  expect(response.status).toBe(200);
  return (await response.json()) as { nodes: Array<{ node_id: string; status: string }> };
}

/** The router is up, a real host registers and answers a chat message, and nothing rejected unhandled. */
async function expectStillServing(setup: TestRouter & { watch: { errors: unknown[] } }) {
  await health(setup.url);
  await startTestHost(
    setup.nodeUrl,
    { NODE_ID: "good-host", SERVES_USERS: "u-good" },
    echoHandler("good-host"),
  ).ready();
  setup.chat.receive({ userId: "u-good", text: "still there?" });
  // Tagged "[good-host]" when the fuzz left a node behind that serves everyone (then u-good has two).
  await waitFor(() => setup.chat.textsFor("u-good").some((text) => text.endsWith("good-host: still there?")));
  expect(setup.watch.errors).toEqual([]);
}

const latin1 = (text: string) => Buffer.from(text, "latin1");

describe("bearer token fuzz", () => {
  it("refuses malformed and wrong tokens with 401 before the upgrade", async () => {
    const setup = await routerWatched();
    const utf8AsLatin1 = Buffer.from(`Bearer ${SECRET}秘密`, "utf8").toString("latin1");
    for (const header of [
      "",
      "Bearer",
      "Bearer ",
      SECRET,
      `Basic ${SECRET}`,
      `Bearer${SECRET}`,
      `Bearer\t${SECRET}`,
      `Bearer ${SECRET}x`,
      `Bearer ${SECRET.slice(0, -1)}`,
      `Bearer ${SECRET.toUpperCase()}`,
      `Bearer ${SECRET} ${SECRET}`,
      `Bearer ${"x".repeat(10_000)}`,
      "Bearer é",
      utf8AsLatin1,
    ]) {
      expect(await upgradeStatus(setup.nodeUrl, header), JSON.stringify(header)).toBe(401);
    }
    expect((await health(setup.url)).nodes).toEqual([]);
    await expectStillServing(setup);
  });

  it("no token at all: refused before the upgrade unless it names a node the router expects, then let in to prove a key, and without one refused (UNAUTHORIZED, 4401); nothing registers", async () => {
    const setup = await routerWatched({ ADMINS: ADMIN });
    expect(await upgradeStatus(setup.nodeUrl, undefined)).toBe(401);
    await expect(connectFakeNode({ url: setup.nodeUrl, nodeId: "home-pc" })).rejects.toThrow("401");
    await askJoinCode(setup, "home-pc");
    const node = await connectFakeNode({ url: setup.nodeUrl, nodeId: "home-pc" });
    expect(await node.register({ node_id: "home-pc", serves_users: ["u1"] })).toMatchObject({
      type: "register_error",
      code: "UNAUTHORIZED",
      reason: expect.stringContaining("has no key"),
    });
    expect((await node.closed).code).toBe(4401);
    expect((await health(setup.url)).nodes).toEqual([]);
    await expectStillServing(setup);
  });

  it("refuses random tokens of any header-legal bytes with 401", async () => {
    const setup = await routerWatched();
    // Every byte Node's HTTP client lets into a header value: tab, printable ASCII, and 0x80-0xff.
    const headerChar = fc
      .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
      .map((code) => String.fromCharCode(code));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: headerChar, maxLength: 300 }), async (token) => {
        fc.pre(token.trim() !== SECRET);
        expect(await upgradeStatus(setup.nodeUrl, `Bearer ${token}`)).toBe(401);
      }),
      fcParams({ numRuns: 60 }),
    );
    await expectStillServing(setup);
  });

  it("a 100 KB token hits the HTTP header limit (431) and is never compared; the router stays up", async () => {
    const setup = await routerWatched();
    expect(await upgradeStatus(setup.nodeUrl, `Bearer ${"x".repeat(100_000)}`)).toBe(431);
    expect(await upgradeStatus(setup.nodeUrl, `Bearer ${SECRET}${"x".repeat(100_000)}`)).toBe(431);
    await expectStillServing(setup);
  });

  it("non-ASCII and control bytes sent raw: 401 for UTF-8, 400 for NUL and CR; nothing crashes", async () => {
    const setup = await routerWatched();
    expect(await rawUpgradeStatus(setup.nodeUrl, Buffer.from("Bearer 秘密🔑", "utf8"))).toBe(401);
    expect(await rawUpgradeStatus(setup.nodeUrl, Buffer.from(`Bearer ${SECRET}é`, "utf8"))).toBe(401);
    expect(await rawUpgradeStatus(setup.nodeUrl, latin1(`Bearer ${SECRET}\u0000`))).toBe(400);
    expect(await rawUpgradeStatus(setup.nodeUrl, latin1(`Bearer ${SECRET}\rX`))).toBe(400);
    expect(await rawUpgradeStatus(setup.nodeUrl, latin1(`Bearer ${SECRET}`))).toBe(101);
    await expectStillServing(setup);
  });

  it("accepts the scheme in any case and with several spaces (RFC 7235), the secret only exactly", async () => {
    const { nodeUrl } = await routerWatched();
    for (const header of [
      `bearer ${SECRET}`,
      `BEARER ${SECRET}`,
      `Bearer   ${SECRET}`,
      `Bearer ${SECRET}  `,
    ]) {
      expect(await upgradeStatus(nodeUrl, header), header).toBe(101);
    }
  });
});

describe("register fuzz", () => {
  it("a version the router does not speak gets register_error UNSUPPORTED_VERSION, then close 4001", async () => {
    const setup = await routerWatched();
    const node = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    const answer = await node.register({ protocol_versions: [999] });
    expect(answer).toMatchObject({ type: "register_error", code: "UNSUPPORTED_VERSION" });
    expect(String(answer.reason)).toContain("[999]");
    expect((await node.closed).code).toBe(4001);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 4 }), { minLength: 1, maxLength: 31 }),
        fc.boolean(),
        async (others, withV3) => {
          const versions = withV3 ? [...others, 3] : others;
          const attempt = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
          const reply = await attempt.register({ node_id: "versions", protocol_versions: versions });
          if (withV3) {
            expect(reply).toMatchObject({ type: "register_ok", protocol_version: 3 });
            attempt.close();
          } else {
            expect(reply).toMatchObject({ type: "register_error", code: "UNSUPPORTED_VERSION" });
            expect((await attempt.closed).code).toBe(4001);
          }
        },
      ),
      fcParams({ numRuns: 25 }),
    );
    await expectStillServing(setup);
  });

  it("a register frame that breaks the schema gets NOT_REGISTERED and close 1008, and registers nothing", async () => {
    const setup = await routerWatched();
    const badNodeId = fc.oneof(
      fc.string({ unit: "binary", maxLength: 80 }).filter((id) => !/^[A-Za-z0-9._-]{1,64}$/.test(id)),
      fc.constantFrom<unknown>(
        "",
        "a b",
        "../etc",
        "a/b",
        "x".repeat(65),
        "ünï",
        "a\u0000b",
        "pc\n",
        7,
        null,
        ["a"],
      ),
    );
    const badFields = fc.oneof(
      badNodeId.map((node_id) => ({ node_id })),
      fc.constantFrom<Record<string, unknown>>(
        { protocol_versions: [] },
        { protocol_versions: [0] },
        { protocol_versions: [-1] },
        { protocol_versions: [1.5] },
        { protocol_versions: ["1"] },
        { protocol_versions: null },
        { protocol_versions: Array(33).fill(1) },
        { display_name: "" },
        { serves_users: "everyone" },
        { capabilities: [""] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(badFields, async (fields) => {
        const node = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
        const refused = nextFrame(node.socket, (frame) => frame.type === "error");
        const valid: Record<string, unknown> = {
          type: "register",
          node_id: "fuzzed",
          display_name: "Fuzzed",
          serves_users: [],
          working_dir: "/tmp",
          capabilities: [],
          protocol_versions: [3],
        };
        node.send({ ...valid, ...fields });
        const error = await refused;
        expect(error).toMatchObject({ code: "NOT_REGISTERED" });
        expect(String(error.message)).toContain(`invalid 'register' frame: ${Object.keys(fields)[0]}`);
        expect(await node.closed).toEqual({ code: 1008, reason: "expected a register frame first" });
      }),
      fcParams({ numRuns: 40 }),
    );
    expect((await health(setup.url)).nodes).toEqual([]);
    await expectStillServing(setup);
  });

  it("a second register on a live socket is refused with BAD_FRAME; the connection and its id stay", async () => {
    const setup = await routerWatched();
    const node = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    await node.register({ node_id: "first", serves_users: ["u1"] });
    for (const node_id of ["first", "second"]) {
      node.send({
        type: "register",
        node_id,
        display_name: "Again",
        serves_users: ["u2"],
        working_dir: "/",
        capabilities: [],
        protocol_versions: [3],
      });
      expect(await node.inbox.next("error")).toMatchObject({
        code: "BAD_FRAME",
        message: "already registered as 'first'",
      });
    }
    expect((await health(setup.url)).nodes).toMatchObject([{ node_id: "first", status: "online" }]);
    // Still the same, working connection: it gets and answers u1's message.
    setup.chat.receive({ userId: "u1", text: "hello first" });
    const forward = await node.inbox.next("forward");
    node.send({
      type: "forward_response",
      id: forward.id,
      delivery_id: `reply-${forward.id}`,
      text: "first here",
    });
    await waitFor(() => setup.chat.textsFor("u1").includes("first here"));
    await expectStillServing(setup);
  });

  it("a node id claimed by a live connection: the newcomer takes over, the old socket is closed with 4000", async () => {
    const setup = await routerWatched();
    const first = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    await first.register({ node_id: "home-pc", serves_users: ["u1"] });
    const second = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    expect(await second.register({ node_id: "home-pc", serves_users: ["u1"] })).toMatchObject({
      type: "register_ok",
    });
    expect(await first.closed).toEqual({
      code: 4000,
      reason: "replaced by a newer connection with the same node id",
    });
    expect((await health(setup.url)).nodes).toMatchObject([{ node_id: "home-pc", status: "online" }]);
    setup.chat.receive({ userId: "u1", text: "who has it?" });
    const forward = await second.inbox.next("forward");
    second.send({
      type: "forward_response",
      id: forward.id,
      delivery_id: `reply-${forward.id}`,
      text: "the newcomer",
    });
    await waitFor(() => setup.chat.textsFor("u1").includes("the newcomer"));
    expect(first.inbox.ofType("forward")).toEqual([]);
    await expectStillServing(setup);
  });
});

describe("the shared secret through a reverse proxy", () => {
  it("a loopback router refuses the right secret when a proxy forwarded the request: the caller is on the internet", async () => {
    const setup = await routerWatched();
    const forwarded: Array<Record<string, string>> = [
      { "X-Forwarded-For": "203.0.113.7" },
      { Forwarded: "for=203.0.113.7;proto=https" },
      { "x-forwarded-for": "127.0.0.1" },
    ];
    for (const headers of forwarded) {
      await expect(
        connectFakeNode({ url: setup.nodeUrl, secret: SECRET, headers }),
        JSON.stringify(headers),
      ).rejects.toThrow("401");
    }
    expect((await health(setup.url)).nodes).toEqual([]);
    expect(JSON.stringify(setup.logs())).toContain("shared secret through a proxy");
    // The same secret straight from this machine still gets in.
    const direct = await connectFakeNode({ url: setup.nodeUrl, secret: SECRET });
    expect(await direct.register({ node_id: "direct" })).toMatchObject({ type: "register_ok" });
    direct.close();
    await expectStillServing(setup);
  });
});

describe("upgrade paths and the handshake budget", () => {
  it("only /ws/node upgrades: other paths and other spellings of it get 404, even with the right secret", async () => {
    const setup = await routerWatched();
    const base = setup.nodeUrl.replace(/\/ws\/node$/, "");
    const bearer = `Bearer ${SECRET}`;
    for (const path of ["/ws/other", "/ws/%6Eode", "//ws/node", "/ws/node/", "/WS/NODE", "/", "/health"]) {
      expect(await upgradeStatus(`${base}${path}`, bearer), path).toBe(404);
    }
    expect(await upgradeStatus(`${base}/ws/node?client=1`, bearer)).toBe(101);
    await expectStillServing(setup);
  });

  it("strangers with wrong secrets do not use up the handshake budget of real hosts", async () => {
    const setup = await routerWatched({ MAX_HANDSHAKES_PER_S: 1 });
    for (let i = 0; i < 30; i++) expect(await upgradeStatus(setup.nodeUrl, `Bearer wrong-${i}`)).toBe(401);
    expect(await upgradeStatus(setup.nodeUrl, `Bearer ${SECRET}`)).toBe(101);
    expect(await upgradeStatus(setup.nodeUrl, `Bearer ${SECRET}`)).toBe(503); // the budget is real
  });
});
