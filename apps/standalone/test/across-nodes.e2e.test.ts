import {
  CleanupScope,
  processRunning,
  type SpawnedProcess,
  spawnApp,
  spawnHostApp,
  waitFor,
} from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// One view across nodes, as a user with two machines sees it: `phonework router` chatting on its
// terminal, and two `phonework host` processes serving that user — work-srv running a background
// task, home-pc the active node. /tasks answers for both at once, each part tagged with its node;
// with home-pc gone it says home-pc was not asked.

const SECRET = "across-nodes-secret";
const USER = "terminal:local";
const SLEEP = "sleep 31.8309";

const scope = new CleanupScope();
let router: SpawnedProcess;
let nodeUrl = "";

function startHost(nodeId: string, env: Record<string, string> = {}): SpawnedProcess {
  const { host, cleanup } = spawnHostApp({
    routerUrl: nodeUrl,
    secret: SECRET,
    nodeId,
    servesUsers: USER,
    env,
  });
  scope.add(cleanup);
  return host;
}

/** Types a line into the router's terminal chat and returns what it printed until `expected` showed. */
async function say(line: string, expected: RegExp): Promise<string> {
  const before = router.stdout().length;
  router.writeLine(line);
  await waitFor(() => expected.test(router.stdout().slice(before)), {
    message: `the answer to "${line}" matching ${expected}`,
  });
  return router.stdout().slice(before);
}

describe("one view across a user's nodes (router and two hosts as processes)", () => {
  let homePc: SpawnedProcess;
  let taskId = "";

  beforeAll(async () => {
    router = scope.track(
      spawnApp("router", {
        ROUTER_SECRET: SECRET,
        ROUTER_HOST: "127.0.0.1",
        ROUTER_PORT: "0",
        DATA_DIR: scope.tempDir(),
        LOG_LEVEL: "info",
        CHAT: "terminal",
        PROGRESS_INTERVAL_S: "0",
      }),
    );
    const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    nodeUrl = `${(url ?? "").replace("http", "ws")}/ws/node`;
    // A /shell past half a second continues as a background task.
    startHost("work-srv", { LONG_TURN_S: "0.5" });
    homePc = startHost("home-pc");
    await router.waitForStderr(/"nodeId":"work-srv".*"msg":"node registered"/);
    await router.waitForStderr(/"nodeId":"home-pc".*"msg":"node registered"/);
  });

  afterAll(() => scope.run());

  it("/tasks lists work-srv's task tagged work-srv while home-pc is active; @home-pc /tasks asks home-pc alone; every answer names its node", async () => {
    const moved = await say(`@work-srv /shell ${SLEEP}`, /continues as task #([0-9a-f]{6})\./);
    expect(moved).toMatch(/\[work-srv\] ⏳ This is taking a while/);
    taskId = /continues as task #([0-9a-f]{6})\./.exec(moved)?.[1] ?? "";
    await say("/node home-pc", /✅ Active node: home-pc\./);

    const tasks = await say("/tasks", /Tasks:\n⏳ #\w+ running .*\n/);
    expect(tasks).toContain("[home-pc] No background tasks yet.");
    expect(tasks).toMatch(new RegExp(`\\[work-srv\\] Tasks:\\n⏳ #${taskId} running \\d+s — ${SLEEP}`));
    expect(tasks.match(/No background tasks yet/g)).toHaveLength(1);

    // Empty everywhere: one line naming both nodes.
    expect(await say("/reminders", /No reminders/)).toMatch(
      /^\[home-pc, work-srv\] No reminders or scheduled checks\./m,
    );
    const one = await say("@home-pc /tasks", /No background tasks yet\./);
    expect(one).toMatch(/^\[home-pc\] No background tasks yet\.$/m);
    expect(one).not.toContain("work-srv");
    // The active node's own answer names it too: the user has two.
    await say("hello", /^\[home-pc\] No model is configured on node "home-pc"/m);
  });

  it("with home-pc offline, /tasks says it was not asked, and /nodes and /status say so honestly", async () => {
    homePc.kill("SIGKILL");
    await homePc.exited;
    await waitFor(() => router.stdout().includes('⚠️ Node "home-pc" disconnected.'));

    const tasks = await say("/tasks", /Offline, not asked: .*\n/);
    expect(tasks).toMatch(new RegExp(`^\\[work-srv\\] Tasks:\\n⏳ #${taskId} running`, "m"));
    expect(tasks).toMatch(/^Offline, not asked: home-pc \(last seen \d+s ago\)\.$/m);

    const nodes = await say("/nodes", /switch active node/);
    expect(nodes).toMatch(
      /^Online:\n {2}work-srv\s+sessions=0\s+online \d+s\nOffline:\n→ home-pc\s+\[ACTIVE\]\s+sessions=0\s+last seen \d+s ago\n/m,
    );
    expect(nodes).not.toContain("Connected Nodes");
    const status = await say("/status", /• home-pc/);
    expect(status).toMatch(/^• work-srv — online \d+s; shared secret; serves terminal:local$/m);
    expect(status).toMatch(/^• home-pc — offline \(last seen \d+s ago\)/m);
    await say("anyone?", /⚠️ home-pc is offline \(last seen \d+s ago\)/);

    await say(`@work-srv /kill ${taskId}`, /Stopping task/);
    await waitFor(() => !processRunning(SLEEP), { message: "the task's process to end" });
  });
});
