import {
  CleanupScope,
  connectFakeNode,
  type FakeFeishu,
  type FakeOpenAI,
  type FeishuConversation,
  feishuConversation,
  fetchHealth,
  type SpawnedProcess,
  spawnApp,
  spawnHostApp,
  startFakeFeishu,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A router and its hosts as the processes a user runs (`phonework router`, `phonework host`), with
// two chats on the one router: its terminal (piped stdin) and Feishu (the real SDK against a fake
// Feishu). What happens to nodes — joining, going away, coming back, being refused — happens once;
// each chat platform shows it, and drives the router, in its own chat. A fake OpenAI-compatible
// server is the routing LLM: unscripted it answers in prose, which is no routing decision, so
// messages go to the user's active node.

const ADMIN_TOKEN = "nodes-admin-token-0123456789";
const SECRET = "nodes-secret";
/** The terminal's user and the Feishu user, as the router names them (and hosts serve them). */
const TERMINAL_USER = "terminal:local";
const FEISHU_USER = "feishu:ou_alice";

const scope = new CleanupScope();
let router: SpawnedProcess;
let baseUrl = "";
let nodeUrl = "";
let routingLlm: FakeOpenAI;
let fake: FakeFeishu;
let feishu: FeishuConversation;

function startHost(nodeId: string, secret = SECRET): SpawnedProcess {
  const { host, cleanup } = spawnHostApp({
    routerUrl: nodeUrl,
    secret,
    nodeId,
    servesUsers: `${TERMINAL_USER},${FEISHU_USER}`,
  });
  scope.add(cleanup);
  return host;
}

/** Types a line into the router's terminal chat and waits for the output it causes. */
async function sayOnTerminal(line: string, expected: RegExp): Promise<string> {
  const before = router.stdout().length;
  router.writeLine(line);
  await waitFor(() => expected.test(router.stdout().slice(before)), {
    message: `the terminal's reply to "${line}" matching ${expected}`,
  });
  return router.stdout().slice(before);
}

const sayInFeishu = (text: string, expected: RegExp) => feishu.say(text, expected);
const health = () => fetchHealth(baseUrl, ADMIN_TOKEN);

describe("a router and its hosts as processes, chatting on the terminal and on Feishu", () => {
  let homePc: SpawnedProcess;
  let workServer: SpawnedProcess;

  beforeAll(async () => {
    fake = await startFakeFeishu();
    scope.add(() => fake.close());
    feishu = feishuConversation(fake, "ou_alice", "oc_alice");
    routingLlm = await startFakeOpenAI();
    scope.add(() => routingLlm.close());
    routingLlm.fallback = () => ({ text: "no idea" });
    router = scope.track(
      spawnApp("router", {
        ROUTER_SECRET: SECRET,
        ADMIN_TOKEN,
        ROUTER_HOST: "127.0.0.1",
        ROUTER_PORT: "0",
        DATA_DIR: scope.tempDir(),
        LOG_LEVEL: "info",
        // Chat on the piped stdin too (CHAT=auto would not: stdin is not a terminal here).
        CHAT: "terminal",
        FEISHU_APP_ID: fake.appId,
        FEISHU_APP_SECRET: fake.appSecret,
        FEISHU_DOMAIN: fake.url,
        ALLOWED_USERS: FEISHU_USER,
        PROGRESS_INTERVAL_S: "0",
        ROUTER_LLM_BASE_URL: routingLlm.url,
        ROUTER_LLM_API_KEY: "routing-key",
      }),
    );
    const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    baseUrl = url ?? "";
    nodeUrl = `${baseUrl.replace("http", "ws")}/ws/node`;
    await fake.waitForWsConnection();
  });

  afterAll(() => scope.run());

  it("hosts register: the router logs each one, and /health lists them online", async () => {
    homePc = startHost("home-pc");
    workServer = startHost("work-server");
    await router.waitForStderr(/"nodeId":"home-pc".*"msg":"node registered"/);
    await router.waitForStderr(/"nodeId":"work-server".*"msg":"node registered"/);
    await homePc.waitForStderr(/registered with router/);
    expect((await health()).nodes.map((n) => [n.node_id, n.status]).sort()).toEqual([
      ["home-pc", "online"],
      ["work-server", "online"],
    ]);
  });

  it("/nodes lists every node with the user's active one marked, on the terminal and in Feishu", async () => {
    await sayOnTerminal("/node home-pc", /✅ Active node: home-pc\./);
    const onTerminal = await sayOnTerminal("/nodes", /switch active node/);
    expect(onTerminal).toMatch(/^→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+online/m);
    expect(onTerminal).toMatch(/^ {2}work-server\s+sessions=0\s+online/m);

    await sayInFeishu("/node home-pc", /✅ Active node: home-pc\./);
    const inFeishu = await sayInFeishu("/nodes", /switch active node/);
    expect(inFeishu).toMatch(/^→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+online/m);
    expect(inFeishu).toMatch(/^ {2}work-server\s+sessions=0\s+online/m);
  });

  it("/node switches the active node: with two nodes serving the user, the next messages go there", async () => {
    await sayOnTerminal("/node work-server", /✅ Active node: work-server\./);
    await sayOnTerminal("what machine is this?", /No model is configured on node "work-server"/);
    const onTerminal = await sayOnTerminal("hello", /No model is configured on node "work-server"/);
    expect(onTerminal).not.toContain("home-pc");

    // Feishu's user has an active node of their own: still home-pc, until they switch.
    await sayInFeishu("hello", /No model is configured on node "home-pc"/);
    await sayInFeishu("/node work-server", /✅ Active node: work-server\./);
    await sayInFeishu("hello again", /No model is configured on node "work-server"/);
    // With two nodes, every answer names the node it came from.
    const inFeishu = await sayInFeishu("which one?", /No model is configured on node/);
    expect(inFeishu).toMatch(/^\[work-server\] No model is configured on node "work-server"/);
  });

  it("the routing LLM picks a node from the list it is shown; the message goes there and the reply names it", async () => {
    const routedOn = async (say: typeof sayOnTerminal, text: string) => {
      const calls = routingLlm.requests.length;
      routingLlm.script({ toolCalls: [{ name: "route_to", arguments: { node_id: "home-pc" } }] });
      await say(text, /^\[home-pc\] .*No model is configured on node "home-pc"/m);
      expect(routingLlm.requests.length).toBe(calls + 1);
      const prompt = String(routingLlm.requests.at(-1)?.messages[0]?.content);
      expect(prompt).toMatch(/^- work-server \[ACTIVE\]: online/m);
      expect(prompt).toMatch(/^- home-pc: online/m);
      expect(routingLlm.lastUserText()).toBe(text);
      // The routed-to node is active now; back to work-server for the steps below.
      expect(await say("/nodes", /switch active node/)).toMatch(/^→ home-pc\s+\[ACTIVE\]/m);
      await say("/node work-server", /✅ Active node: work-server\./);
    };
    await routedOn(sayOnTerminal, "what is on the home machine?");
    await routedOn(sayInFeishu, "and what is on it now?");
  });

  it("a host killed is marked offline and each user is told; restarted, it is back and messages flow again", async () => {
    workServer.kill("SIGKILL");
    await workServer.exited;
    await waitFor(() => router.stdout().includes('⚠️ Node "work-server" disconnected.'));
    await waitFor(() => feishu.texts().includes('⚠️ Node "work-server" disconnected.'));
    expect((await health()).nodes.find((n) => n.node_id === "work-server")?.status).toBe("offline");
    await sayOnTerminal("still there?", /⚠️ work-server is offline \(last seen \d+s ago\)/);

    workServer = startHost("work-server");
    await waitFor(() => router.stdout().includes('✅ Node "work-server" reconnected.'));
    await waitFor(() => feishu.texts().includes('✅ Node "work-server" reconnected.'));
    await sayOnTerminal("back?", /No model is configured on node "work-server"/);
    await sayInFeishu("back?", /No model is configured on node "work-server"/);
  });

  it("a task finishing on a node: its notice reaches the user's chat, saying which node it came from", async () => {
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await node.register({ node_id: "builder", serves_users: [TERMINAL_USER, FEISHU_USER] });
    node.send({
      type: "task_complete",
      task_id: "t42",
      delivery_id: "task-t42",
      user_id: TERMINAL_USER,
      ok: false,
      description: "cargo build",
      output: "error[E0308]: mismatched types",
      elapsed_ms: 61_000,
    });
    node.send({
      type: "task_complete",
      task_id: "t7",
      delivery_id: "task-t7",
      user_id: FEISHU_USER,
      ok: true,
      description: "npm run build",
      output: "built in 3s",
      elapsed_ms: 125_000,
    });
    await waitFor(() => router.stdout().includes("❌ Task #t42 failed (1m)\ncargo build\n\nerror[E0308]"));
    // The user has three nodes now, so the notice says which one it came from.
    await waitFor(() =>
      feishu.texts().some((t) => t.startsWith("[builder] ✅ Task #t7 done (2m)\nnpm run build")),
    );
    node.close();
  });

  it("a host with the wrong ROUTER_SECRET is refused with 401 and never listed", async () => {
    const intruder = startHost("intruder", "not-the-secret");
    await intruder.waitForStderr(/refused this node's key or join code \(HTTP 401\)/);
    expect((await health()).nodes.map((n) => n.node_id)).not.toContain("intruder");
  });

  it("the router exits 0 at the end of its terminal input, after answering", async () => {
    router.writeLine("/help");
    router.endInput();
    expect((await router.exited).code).toBe(0);
    expect(router.stdout()).toContain("PhoneWork commands:");
  });
});
