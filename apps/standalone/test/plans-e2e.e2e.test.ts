import {
  CleanupScope,
  delegateCall,
  type FakeOpenAI,
  type SpawnedProcess,
  scriptPlan,
  spawnApp,
  spawnHostApp,
  startFakeOpenAI,
  stepOf,
  waitFor,
  workerJson,
} from "@phonework/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

// A plan across machines with the real processes: `pnpm router` chatting on its terminal and two
// `pnpm host` processes. The master on home-pc pins a subtask to work-srv; it runs there, and its
// result comes back through work-srv's outbox and the router to the master's report. One router and
// two hosts for the file (the processes are the slow part): each test starts where work-srv is up,
// and reads only what the router printed since it began.

const SECRET = "plans-e2e-secret";
const scope = new CleanupScope();
afterAll(() => scope.run());

async function startRouter() {
  const router = scope.track(
    spawnApp("router", {
      ROUTER_SECRET: SECRET,
      ROUTER_HOST: "127.0.0.1",
      ROUTER_PORT: "0",
      DATA_DIR: scope.tempDir(),
      CHAT: "terminal",
      LOG_LEVEL: "info",
      PROGRESS_INTERVAL_S: "0",
    }),
  );
  const [, url] = await router.waitForStderr(/"url":"(http:\/\/127\.0\.0\.1:(\d+))"/);
  return { router, nodeUrl: `${(url ?? "").replace("http", "ws")}/ws/node` };
}

function startHost(nodeUrl: string, nodeId: string, dataDir: string, model: FakeOpenAI): SpawnedProcess {
  const { host, cleanup } = spawnHostApp({
    routerUrl: nodeUrl,
    secret: SECRET,
    nodeId,
    dataDir,
    env: {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-test",
      OPENAI_MAX_RETRIES: "0",
      PLAN_PROGRESS_INTERVAL_S: "0",
    },
  });
  scope.add(cleanup);
  return host;
}

const registrations = (router: SpawnedProcess) =>
  (router.stderr().match(/"msg":"node registered"/g) ?? []).length;

async function twoHosts() {
  const model = await startFakeOpenAI({ apiKey: "sk-test" });
  scope.add(() => model.close());
  const { router, nodeUrl } = await startRouter();
  const workDir = scope.tempDir();
  startHost(nodeUrl, "home-pc", scope.tempDir(), model);
  let work = startHost(nodeUrl, "work-srv", workDir, model);
  let workExited = false;
  const watch = (host: SpawnedProcess) => {
    workExited = false;
    void host.exited.then(() => {
      if (host === work) workExited = true;
    });
  };
  watch(work);
  await waitFor(() => registrations(router) >= 2, { timeoutMs: 20_000 });
  let from = 0;
  return {
    model,
    router,
    workDir,
    work: () => work,
    restartWork: () => {
      work = startHost(nodeUrl, "work-srv", workDir, model);
      watch(work);
      return work;
    },
    /** What the router printed since the test began (the file shares one router). */
    out: () => router.stdout().slice(from),
    /** A test's start: work-srv up (an earlier test may have killed it) and the router's output read from here. */
    async begin() {
      if (workExited) {
        const before = registrations(router);
        this.restartWork();
        await waitFor(() => registrations(router) > before, { timeoutMs: 20_000 });
      }
      from = router.stdout().length;
    },
  };
}

let s: Awaited<ReturnType<typeof twoHosts>>;
beforeAll(async () => {
  s = await twoHosts();
}, 60_000);
beforeEach(() => s.begin());

const pinned = (extra: object = {}) =>
  delegateCall("run the test suite on work-srv", [
    { id: "tests", objective: "run the test suite", skills: ["run_shell"], node: "work-srv", ...extra },
  ]);

/** The first line of a run_shell result's stdout (the block after "stdout:"). */
const firstOutputLine = (result = "") => /stdout:\n`{3}\n(.*)\n/.exec(result)?.[1];

describe("a plan across two hosts (real router and host processes)", () => {
  it("a subtask pinned to work-srv runs there and its result reaches the master's report", async () => {
    scriptPlan(s.model, {
      master: [pinned(), { text: "Sent the tests to work-srv." }],
      worker: (_task, request) =>
        stepOf(request) === 0
          ? { toolCalls: [{ name: "run_shell", arguments: { command: "pwd" } }] }
          : workerJson(`ran in ${firstOutputLine(s.model.toolResults(request).at(-1))}`),
      report: (request) => ({
        text: `Task complete. ${/ran in [^"\\]+/.exec(String(request.messages.at(-1)?.content))?.[0]}`,
      }),
    });
    s.router.writeLine("@home-pc run the test suite on work-srv");
    await waitFor(() => s.out().includes("Sent the tests to work-srv."), { timeoutMs: 20_000 });
    await waitFor(() => s.out().includes("Task complete."), { timeoutMs: 30_000 });
    expect(s.out()).toContain(`Task complete. ran in ${s.workDir}`);
    // The worker's model calls came from work-srv: its tool ran in work-srv's WORKING_DIR.
    expect(s.out()).toMatch(/Worker@work-srv finished \[tests\]/);
  });

  it("work-srv killed mid-subtask: the subtask is retried when it returns, and the plan finishes", async () => {
    scriptPlan(s.model, {
      master: [pinned(), { text: "Sent." }],
      worker: (task, request) => {
        if (task.context.includes("A previous attempt at this task failed"))
          return workerJson("second attempt passed");
        return stepOf(request) === 0
          ? { toolCalls: [{ name: "run_shell", arguments: { command: "sleep 60" } }] }
          : workerJson("never");
      },
    });
    s.router.writeLine("@home-pc run the test suite on work-srv");
    await waitFor(() => s.out().includes("Worker@work-srv running [tests]"), { timeoutMs: 20_000 });
    s.work().kill("SIGKILL");
    await s.work().exited;
    await waitFor(() => /waiting \[tests\] \(retry 2: NODE_OFFLINE/.test(s.out()), {
      timeoutMs: 15_000,
    });
    s.restartWork();
    await waitFor(() => s.out().includes("Task complete."), { timeoutMs: 30_000 });
    expect(s.out()).toContain("second attempt passed");
  });

  it("work-srv killed and gone: the subtask fails with a clear error once its TTL has passed", async () => {
    scriptPlan(s.model, {
      master: [pinned({ ttl_s: 3 }), { text: "Sent." }],
      worker: () => ({ toolCalls: [{ name: "run_shell", arguments: { command: "sleep 60" } }] }),
      report: () => ({ text: "Summary written." }),
    });
    s.router.writeLine("@home-pc run the test suite on work-srv");
    await waitFor(() => s.out().includes("Worker@work-srv running [tests]"), { timeoutMs: 20_000 });
    s.work().kill("SIGKILL");
    await waitFor(() => s.out().includes("Summary written."), { timeoutMs: 30_000 });
    const out = s.out();
    expect(out).toContain("every part failed");
    expect(out).toMatch(
      /\[tests\] node work-srv did not come back within 3s \(NODE_OFFLINE: node "work-srv" is not connected\)/,
    );
  });
});
