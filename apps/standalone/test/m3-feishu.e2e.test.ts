import {
  connectFakeNode,
  type FakeFeishu,
  type FakeOpenAI,
  type FeishuConversation,
  feishuConversation,
  fetchHealth,
  makeTempDir,
  type SpawnedProcess,
  spawnApp,
  spawnHostApp,
  startFakeFeishu,
  startFakeOpenAI,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The seed's M3 checklist with Feishu as the chat: `pnpm router` (real process, real SDK) talks
// to a fake Feishu server; hosts are separate `pnpm host` processes; a fake OpenAI-compatible
// server is the routing LLM (unscripted it answers in prose, so routing falls back to the active node).

const ADMIN_TOKEN = "m3-admin-token-0123456789";
const SECRET = "m3-feishu-secret";
const USER = "ou_alice";
const CHAT = "oc_alice";
let fake: FakeFeishu;
let router: SpawnedProcess;
let baseUrl = "";
let nodeUrl = "";
let routingLlm: FakeOpenAI;
const processes: SpawnedProcess[] = [];
const dirs: Array<() => void> = [];
const cleanups: Array<() => void> = [];

function startHost(nodeId: string, secret = SECRET): SpawnedProcess {
  const { host, cleanup } = spawnHostApp({ routerUrl: nodeUrl, secret, nodeId, servesUsers: USER });
  cleanups.push(cleanup);
  return host;
}

let chat: FeishuConversation;
const texts = () => chat.texts();
const say = (text: string, expected: RegExp) => chat.say(text, expected);

describe("seed M3 checklist over Feishu (pnpm router + pnpm host processes)", () => {
  let workServer: SpawnedProcess;

  beforeAll(async () => {
    fake = await startFakeFeishu();
    chat = feishuConversation(fake, USER, CHAT);
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
      FEISHU_APP_ID: fake.appId,
      FEISHU_APP_SECRET: fake.appSecret,
      FEISHU_DOMAIN: fake.url,
      ALLOWED_USERS: USER,
      PROGRESS_INTERVAL_S: "0",
      ROUTER_LLM_BASE_URL: routingLlm.url,
      ROUTER_LLM_API_KEY: "routing-key",
    });
    processes.push(router);
    const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    baseUrl = url ?? "";
    nodeUrl = `${baseUrl.replace("http", "ws")}/ws/node`;
    await fake.waitForWsConnection();
  });

  afterAll(async () => {
    for (const p of processes) p.kill("SIGKILL");
    await fake.close();
    await routingLlm.close();
    for (const remove of dirs) remove();
    for (const cleanup of cleanups) cleanup();
  });

  it("M3: router starts, host clients connect, registration logged", async () => {
    startHost("home-pc");
    workServer = startHost("work-server");
    await router.waitForStderr(/"nodeId":"home-pc".*"msg":"node registered"/);
    await router.waitForStderr(/"nodeId":"work-server".*"msg":"node registered"/);
  });

  it("M3: /nodes shows all connected nodes with active marker", async () => {
    await say("/node home-pc", /✅ Active node: home-pc\./);
    const out = await say("/nodes", /switch active node/);
    expect(out).toMatch(/^→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+online/m);
    expect(out).toMatch(/^ {2}work-server\s+sessions=0\s+online/m);
  });

  it("M3: Feishu message → node → reply; /node work-server switches, confirmed in the next message", async () => {
    await say("hello", /No model is configured on node "home-pc"/);
    await say("/node work-server", /✅ Active node: work-server\./);
    await say("hello again", /No model is configured on node "work-server"/);
  });

  it("M3: two nodes serving the same user — message routed to the active node", async () => {
    const reply = await say("which one?", /No model is configured on node/);
    expect(reply).toMatch(/^No model is configured on node "work-server"/);
  });

  it("M3: Feishu message → routing LLM selects node → forwarded → reply returned", async () => {
    const calls = routingLlm.requests.length;
    routingLlm.script({ toolCalls: [{ name: "route_to", arguments: { node_id: "home-pc" } }] });
    await say("what is on the home machine?", /^\[home-pc\] .*No model is configured on node "home-pc"/m);
    expect(routingLlm.requests.length).toBe(calls + 1);
    const prompt = String(routingLlm.requests.at(-1)?.messages[0]?.content);
    expect(prompt).toMatch(/^- work-server \[ACTIVE\]: online/m);
    expect(prompt).toMatch(/^- home-pc: online/m);
    expect(await say("/nodes", /switch active node/)).toMatch(/^→ home-pc\s+\[ACTIVE\]/m);
    await say("/node work-server", /✅ Active node: work-server\./);
  });

  it("M3: kill host client → router marks offline, the user is told in Feishu", async () => {
    workServer.kill("SIGKILL");
    await workServer.exited;
    await waitFor(() => texts().includes('⚠️ Node "work-server" disconnected.'));
    const health = await fetchHealth(baseUrl, ADMIN_TOKEN);
    expect(health.nodes.find((n) => n.node_id === "work-server")?.status).toBe("offline");
  });

  it("M3: host client reconnects → re-registered, messages flow again", async () => {
    workServer = startHost("work-server");
    await waitFor(() => texts().includes('✅ Node "work-server" reconnected.'));
    await say("back?", /No model is configured on node "work-server"/);
  });

  it("M3: a task finishing on a node → completion notice arrives in Feishu", async () => {
    const node = await connectFakeNode({ url: nodeUrl, secret: SECRET });
    await node.register({ node_id: "builder", serves_users: [USER] });
    node.send({
      type: "task_complete",
      task_id: "t7",
      delivery_id: "task-t7",
      user_id: USER,
      ok: true,
      description: "npm run build",
      output: "built in 3s",
      elapsed_ms: 125_000,
    });
    // The user has three nodes now, so the notice says which one it came from.
    await waitFor(() => texts().some((t) => t.startsWith("[builder] ✅ Task #t7 done (2m)\nnpm run build")));
    node.close();
  });

  it("M3: wrong ROUTER_SECRET → connection rejected with 401", async () => {
    const intruder = startHost("intruder", "wrong");
    await intruder.waitForStderr(/refused this node's key or join code \(HTTP 401\)/);
    const health = await fetchHealth(baseUrl, ADMIN_TOKEN);
    expect(health.nodes.map((n) => n.node_id)).not.toContain("intruder");
  });
});
