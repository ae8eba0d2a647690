import {
  connectFakeNode,
  type FakeOpenAI,
  fetchHealth,
  makeTempDir,
  type SpawnedProcess,
  spawnApp,
  spawnHostApp,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The seed's M3 verification checklist, item by item, with the real `pnpm router` and
// `pnpm host` entry points as separate processes and the router chatting on its terminal.
// A fake OpenAI-compatible server is the routing LLM; unscripted it answers in prose, which is
// not a routing decision, so the router falls back to the active node.

const ADMIN_TOKEN = "m3-admin-token-0123456789";
const SECRET = "m3-secret";
const processes: SpawnedProcess[] = [];
const dirs: Array<() => void> = [];
const cleanups: Array<() => void> = [];
let router: SpawnedProcess;
let baseUrl = "";
let nodeUrl = "";
let routingLlm: FakeOpenAI;

function startHost(nodeId: string, secret = SECRET): SpawnedProcess {
  // The terminal's user, qualified: a bare id would mean the only chat adapter, and the terminal is none.
  const { host, cleanup } = spawnHostApp({
    routerUrl: nodeUrl,
    secret,
    nodeId,
    servesUsers: "terminal:local",
  });
  cleanups.push(cleanup);
  return host;
}

/** Types a line into the router's terminal chat and waits for the output it causes. */
async function say(line: string, expected: RegExp): Promise<string> {
  const before = router.stdout().length;
  router.writeLine(line);
  await waitFor(() => expected.test(router.stdout().slice(before)), {
    message: `reply to "${line}" matching ${expected}`,
  });
  return router.stdout().slice(before);
}

const health = () => fetchHealth(baseUrl, ADMIN_TOKEN);

describe("seed M3 verification checklist", () => {
  let homePc: SpawnedProcess;
  let workServer: SpawnedProcess;

  beforeAll(async () => {
    routingLlm = await startFakeOpenAI();
    routingLlm.fallback = () => ({ text: "no idea" });
    const dir = makeTempDir();
    dirs.push(dir.remove);
    router = spawnApp("router", {
      ROUTER_SECRET: SECRET,
      ADMIN_TOKEN,
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      DATA_DIR: dir.path,
      LOG_LEVEL: "info",
      // Chat on the piped stdin (CHAT=auto would run headless: stdin is not a terminal here).
      CHAT: "terminal",
      ROUTER_LLM_BASE_URL: routingLlm.url,
      ROUTER_LLM_API_KEY: "routing-key",
    });
    processes.push(router);
    const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    baseUrl = url ?? "";
    nodeUrl = `${baseUrl.replace("http", "ws")}/ws/node`;
  });

  afterAll(async () => {
    for (const p of processes) p.kill("SIGKILL");
    await routingLlm.close();
    for (const remove of dirs) remove();
    for (const cleanup of cleanups) cleanup();
  });

  it("M3: router starts, host client connects, registration logged", async () => {
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

  it("M3: /nodes shows all connected nodes with active marker", async () => {
    await say("/node home-pc", /✅ Active node: home-pc\./);
    const out = await say("/nodes", /switch active node/);
    expect(out).toMatch(/^→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+online/m);
    expect(out).toMatch(/^ {2}work-server\s+sessions=0\s+online/m);
  });

  it("M3: /node work-server — switches active node, confirmed in next message", async () => {
    await say("/node work-server", /✅ Active node: work-server\./);
    await say("what machine is this?", /No model is configured on node "work-server"/);
  });

  it("M3: two nodes serving same user — message routed to active node", async () => {
    const out = await say("hello", /No model is configured on node "work-server"/);
    expect(out).not.toContain("home-pc");
  });

  it("M3: message → routing LLM selects node → forwarded → reply returned", async () => {
    const calls = routingLlm.requests.length;
    routingLlm.script({ toolCalls: [{ name: "route_to", arguments: { node_id: "home-pc" } }] });
    await say("what is on the home machine?", /^\[home-pc\] .*No model is configured on node "home-pc"/m);
    expect(routingLlm.requests.length).toBe(calls + 1);
    const prompt = String(routingLlm.requests.at(-1)?.messages[0]?.content);
    expect(prompt).toMatch(/^- work-server \[ACTIVE\]: online/m);
    expect(prompt).toMatch(/^- home-pc: online/m);
    expect(routingLlm.lastUserText()).toBe("what is on the home machine?");
    // The routed-to node is active now; switch back for the items below.
    expect(await say("/nodes", /switch active node/)).toMatch(/^→ home-pc\s+\[ACTIVE\]/m);
    await say("/node work-server", /✅ Active node: work-server\./);
  });

  it("M3: kill host client → router marks offline, user sees that the node went offline", async () => {
    workServer.kill("SIGKILL");
    await workServer.exited;
    await waitFor(() => router.stdout().includes('⚠️ Node "work-server" disconnected.'));
    expect((await health()).nodes.find((n) => n.node_id === "work-server")?.status).toBe("offline");
    await say("still there?", /⚠️ work-server is offline \(last seen \d+ s ago\)/);
  });

  it("M3: host client reconnects → re-registered, messages flow again", async () => {
    workServer = startHost("work-server");
    await waitFor(() => router.stdout().includes('✅ Node "work-server" reconnected.'));
    await say("back?", /No model is configured on node "work-server"/);
  });

  it("M3: task finishing on a node → router forwards the completion notification to the chat", async () => {
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await node.register({ node_id: "builder", serves_users: ["terminal:local"] });
    node.send({
      type: "task_complete",
      task_id: "t42",
      delivery_id: "task-t42",
      user_id: "terminal:local",
      ok: false,
      description: "cargo build",
      output: "error[E0308]: mismatched types",
      elapsed_ms: 61_000,
    });
    await waitFor(() => router.stdout().includes("❌ Task #t42 failed (1m)\ncargo build\n\nerror[E0308]"));
    node.close();
  });

  it("M3: wrong ROUTER_SECRET → connection rejected with 401", async () => {
    const intruder = startHost("intruder", "not-the-secret");
    await intruder.waitForStderr(/refused this node's key or join code \(HTTP 401\)/);
    expect((await health()).nodes.map((n) => n.node_id)).not.toContain("intruder");
  });

  it("M3: router exits 0 at end of terminal input after answering", async () => {
    router.writeLine("/help");
    router.endInput();
    expect((await router.exited).code).toBe(0);
    expect(router.stdout()).toContain("PhoneWork commands:");
  });
});
