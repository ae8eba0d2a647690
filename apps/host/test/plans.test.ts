import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AnyFrame,
  delegateCall,
  type FakeOpenAI,
  type FakeRouter,
  makeTempDir,
  processRunning,
  reportInput,
  scriptPlan,
  stepOf,
  waitFor,
  workerJson,
} from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { Host } from "../src/create-host.ts";
import { startHostWithModel } from "./support.ts";

// Master/Worker on one host, with the real host (createHost), a fake router and the fake OpenAI
// server playing the master, every worker and the report writer.

const _SECRET = "plans-secret";

interface Setup {
  router: FakeRouter;
  model: FakeOpenAI;
  host: Host;
  dir: string;
  ask(id: string, text: string): Promise<AnyFrame>;
  send(id: string, text: string): void;
  report(): Promise<AnyFrame>;
}

async function setup(
  overrides: Record<string, unknown> = {},
  dir?: { path: string; remove?: () => void },
): Promise<Setup> {
  const started = await startHostWithModel({ PLAN_PROGRESS_INTERVAL_S: 0, ...overrides }, dir);
  const { router, model, host } = started;
  const send = (id: string, text: string) =>
    router.latest().send({ type: "forward", id, user_id: "u1", chat_id: "c1", platform: "t", text });
  return {
    router,
    model,
    host,
    dir: started.dir,
    send,
    ask: (id, text) => {
      send(id, text);
      return router.latest().inbox.next("forward_response", (f) => f.id === id, 15_000);
    },
    report: () =>
      router.latest().inbox.next("notify", (f) => !f.edit_key && /Task|Plan p/.test(String(f.text)), 30_000),
  };
}

const shell = (command: string) => ({ toolCalls: [{ name: "run_shell", arguments: { command } }] });
// A worker's long command is found by its unique `sleep` duration, not by `$$`: in the sandbox a
// command's pid is its pid namespace's, not this machine's.
let sleepers = 0;
const sleeper = (name: string, seconds: number) => {
  const marker = `sleep ${seconds}.${process.pid}${++sleepers}`;
  return shell(`echo ${marker} > pid-${name}; exec ${marker}`);
};
const running = (marker: string) => processRunning(marker);
const pidsIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith("pid-"))
    .map((f) => readFileSync(join(dir, f), "utf8").trim());

describe("Master/Worker plans on one host", () => {
  it("three independent subtasks run in parallel: their RUNNING intervals in the ledger overlap", async () => {
    const s = await setup();
    scriptPlan(s.model, {
      master: [
        delegateCall("count three folders", [
          { id: "a", objective: "count folder A", skills: ["run_shell"] },
          { id: "b", objective: "count folder B", skills: ["run_shell"] },
          { id: "c", objective: "count folder C", skills: ["file_ops"] },
        ]),
        { text: "Started: 3 parts." },
      ],
      // Each worker is still thinking while the others start.
      worker: (task) => ({ delayMs: 700, reply: workerJson(`${task.objective}: 4 files`) }),
    });
    const answer = await s.ask("r1", "count the files in A, B and C");
    expect(answer.text).toBe("Started: 3 parts.");
    const delegated = s.model.requests.find((r) => r.messages.some((m) => m.role === "tool"));
    expect(s.model.toolResults(delegated)[0]).toMatch(
      /^Split into 3 parts, running on Worker-1…3, about 1 min\./,
    );
    const report = await s.report();
    expect(report.text).toMatch(/^Task complete\./);
    expect(report.alert).toBe("plan"); // the final report is news for the phone; progress is not

    const ledger = s.host.workers.ledger;
    const plan = ledger.plansOf("u1")[0];
    expect(plan?.status).toBe("done");
    const attempts = ledger.attempts(plan?.id ?? "");
    expect(attempts.map((a) => a.state)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    expect(new Set(attempts.map((a) => a.worker))).toEqual(new Set(["Worker-1", "Worker-2", "Worker-3"]));
    const latestStart = Math.max(...attempts.map((a) => a.started_at ?? 0));
    const earliestEnd = Math.min(...attempts.map((a) => a.finished_at ?? 0));
    expect(latestStart).toBeLessThan(earliestEnd);
    // The report was written from every result.
    const reportRequest = s.model.requests.find((r) =>
      String(r.messages[0]?.content).includes("master of a plan"),
    );
    expect(reportRequest && reportInput(reportRequest)).toContain("count folder C: 4 files");
  });

  it("depends_on orders the run and hands the result on as context", async () => {
    const s = await setup();
    const plan = scriptPlan(s.model, {
      master: [
        delegateCall("find then summarize", [
          {
            id: "summarize",
            objective: "summarize the findings",
            skills: ["run_shell"],
            depends_on: ["find"],
          },
          { id: "find", objective: "find the large files", skills: ["run_shell"] },
        ]),
        { text: "ok" },
      ],
      worker: (task) =>
        task.objective.startsWith("find")
          ? workerJson("big.iso (4 GB) and old.tar (2 GB)")
          : workerJson(
              `summary of: ${task.context.includes("big.iso (4 GB)") ? "got the input" : "NO INPUT"}`,
            ),
    });
    await s.ask("r1", "find big files and summarize");
    await s.report();
    const ledger = s.host.workers.ledger;
    const id = ledger.plansOf("u1")[0]?.id ?? "";
    const [summarize, find] = ledger.subtasks(id);
    expect(summarize?.result?.result).toBe("summary of: got the input");
    expect(summarize?.started_at ?? 0).toBeGreaterThanOrEqual(find?.finished_at ?? Number.POSITIVE_INFINITY);
    expect(plan.of("worker")[0] && String(plan.of("worker")[0]?.messages[0]?.content)).toContain(
      "find the large files",
    );
  });

  it("a worker past its TTL is killed with its process, marked TIMEOUT, retried, then FAILED; the report names it", async () => {
    const s = await setup();
    scriptPlan(s.model, {
      master: [
        delegateCall("slow job", [
          { id: "slow", objective: "run the slow job", skills: ["run_shell"], ttl_s: 1 },
        ]),
        { text: "started" },
      ],
      worker: (_task, request) =>
        stepOf(request) === 0 ? sleeper(String(s.model.requests.length), 30) : workerJson("never"),
    });
    await s.ask("r1", "do the slow job");
    const report = await s.report();
    expect(report.text).toContain("❌ Plan");
    expect(report.text).toContain("every part failed");
    expect(report.text).toMatch(/\[slow\] .*timed out after 1s/);
    const ledger = s.host.workers.ledger;
    const id = ledger.plansOf("u1")[0]?.id ?? "";
    expect(ledger.attempts(id).map((a) => a.state)).toEqual(["TIMEOUT", "TIMEOUT"]);
    expect(ledger.subtasks(id)[0]?.state).toBe("TIMEOUT");
    // The retry was told why the first attempt failed.
    const contexts = s.model.requests.filter((r) => String(r.messages[0]?.content).includes("Task ID:"));
    expect(String(contexts.at(-1)?.messages[0]?.content)).toContain("A previous attempt at this task failed");
    const pids = pidsIn(s.dir);
    expect(pids).toHaveLength(2);
    await waitFor(() => pids.every((pid) => !running(pid)), {
      timeoutMs: 5000,
      message: "worker processes gone",
    });
  });

  it("a worker sees none of the user's history and only its skills' tools; its scratch directory is gone after", async () => {
    const s = await setup();
    let scratch = "";
    const plan = scriptPlan(s.model, {
      master: [
        { text: "noted" },
        delegateCall("check disk", [{ id: "disk", objective: "check the disk", skills: ["file_ops"] }]),
        { text: "started" },
      ],
      worker: (_task, request) => {
        scratch = /scratch directory: (\S+) \(/.exec(String(request.messages[0]?.content))?.[1] ?? "";
        return workerJson(existsSync(scratch) ? "scratch exists" : "no scratch");
      },
    });
    await s.ask("r0", "my password is hunter2-banana");
    await s.ask("r1", "check the disk");
    await s.report();
    const [worker] = plan.of("worker");
    expect(JSON.stringify(worker?.messages)).not.toContain("hunter2-banana");
    expect(worker?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(s.model.toolNames(worker)).toEqual(["file_ops"]);
    expect(
      s.host.workers.ledger.subtasks(s.host.workers.ledger.plansOf("u1")[0]?.id ?? "")[0]?.result?.result,
    ).toBe("scratch exists");
    expect(scratch).not.toBe("");
    expect(existsSync(scratch)).toBe(false);
  });

  it("the master answers another message while a plan runs; /plans shows it; /stop ends it and leaves no process", async () => {
    const s = await setup();
    scriptPlan(s.model, {
      master: [
        delegateCall("two long jobs", [
          { id: "one", objective: "long job one", skills: ["run_shell"] },
          { id: "two", objective: "long job two", skills: ["run_shell"] },
        ]),
        { text: "running" },
        { text: "Paris is the capital of France." },
      ],
      worker: (task, request) =>
        stepOf(request) === 0 ? sleeper(task.objective.split(" ").at(-1) ?? "", 60) : workerJson("x"),
    });
    await s.ask("r1", "run both long jobs");
    await waitFor(() => pidsIn(s.dir).length === 2, { timeoutMs: 10_000, message: "both workers running" });
    const other = await s.ask("r2", "what is the capital of France?");
    expect(other.text).toBe("Paris is the capital of France.");

    const id = s.host.workers.ledger.plansOf("u1")[0]?.id ?? "";
    const detail = await s.ask("r3", `/plans ${id}`);
    expect(detail.text).toMatch(/one · RUNNING · Worker-\d · node here · attempts 1\/2 · \d+s/);
    const list = String((await s.ask("r4", "/plans")).text);
    expect(list).toContain(`${id} running · 0/2 done — two long jobs`);
    expect(list).toMatch(
      new RegExp(
        `Workers here: Worker-1 BUSY \\(${id}/(one|two)\\), Worker-2 BUSY \\(${id}/(one|two)\\), Worker-3 IDLE$`,
      ),
    );
    // Another user cannot read it.
    s.router
      .latest()
      .send({ type: "forward", id: "r5", user_id: "u2", chat_id: "c2", platform: "t", text: `/plans ${id}` });
    expect((await s.router.latest().inbox.next("forward_response", (f) => f.id === "r5")).text).toBe(
      `No plan ${id}. /plans lists yours.`,
    );

    const stop = await s.ask("r6", "/stop");
    expect(stop.text).toBe(`⏹️ Stopping plan ${id} and its workers.`);
    const pids = pidsIn(s.dir);
    await waitFor(() => pids.every((pid) => !running(pid)), { timeoutMs: 5000, message: "workers killed" });
    const ledger = s.host.workers.ledger;
    expect(ledger.plan(id)?.status).toBe("stopped");
    expect(ledger.subtasks(id).map((t) => t.state)).toEqual(["CANCELLED", "CANCELLED"]);
    const frames = s.router.latest().inbox.frames;
    await waitFor(
      () => frames.some((f) => f.edit_key === `plan:${id}` && /· stopped —/.test(String(f.text))),
      {
        message: "the progress message says the plan stopped",
      },
    );
  });

  it("refuses a bad plan with a reason the model reads: unknown skill, cycle, unknown node, too many subtasks", async () => {
    const s = await setup({ MAX_SUBTASKS: 2 });
    const bad = [
      [{ id: "a", objective: "x", skills: ["format_disk"] }],
      [
        { id: "a", objective: "x", skills: ["run_shell"], depends_on: ["b"] },
        { id: "b", objective: "y", skills: ["run_shell"], depends_on: ["a"] },
      ],
      [{ id: "a", objective: "x", skills: ["run_shell"], node: "nas" }],
      [1, 2, 3].map((n) => ({ id: `t${n}`, objective: "x", skills: ["run_shell"] })),
    ];
    scriptPlan(s.model, {
      master: bad.flatMap((subtasks) => [delegateCall("bad", subtasks), { text: "could not" }]),
      worker: () => workerJson("never"),
    });
    for (const [index] of bad.entries()) await s.ask(`r${index}`, "do it");
    const reasons = s.model.requests
      .filter((r) => r.messages.at(-1)?.role === "tool")
      .map((r) => s.model.toolResults(r).at(-1));
    expect(reasons).toEqual([
      'Error: plan refused: subtask "a": unknown skill format_disk; workers can use run_shell, file_ops',
      "Error: plan refused: the dependencies form a cycle: a → b → a",
      'Error: plan refused: subtask "a": there is no node "nas" among the user\'s nodes (laptop)',
      "Error: plan refused: 3 subtasks; at most 2 — merge some",
    ]);
    expect(s.host.workers.ledger.plansOf("u1")).toEqual([]);
  });

  it("a host restarted mid-plan carries the plan on: the lost attempt is retried and the report arrives", async () => {
    const dir = makeTempDir();
    const first = await setup({}, dir);
    scriptPlan(first.model, {
      master: [
        delegateCall("one long job", [{ id: "job", objective: "the long job", skills: ["run_shell"] }]),
        { text: "ok" },
      ],
      worker: (_task, request) => (stepOf(request) === 0 ? sleeper("first", 60) : workerJson("x")),
    });
    await first.ask("r1", "do the long job");
    await waitFor(() => pidsIn(dir.path).length === 1, { timeoutMs: 10_000, message: "worker running" });
    await first.host.stop();
    const [firstPid] = pidsIn(dir.path);
    // Its command is killed as a tree with escalation (SIGTERM, a wait, SIGKILL): gone within that.
    await waitFor(() => !running(firstPid ?? "no worker"), {
      timeoutMs: 5_000,
      message: "the worker's command to end",
    });

    const second = await setup({}, { path: dir.path });
    scriptPlan(second.model, { master: [], worker: () => workerJson("done after the restart") });
    const report = await second.report();
    expect(report.text).toMatch(/^Task complete\./);
    expect(report.alert).toBe("plan"); // the final report is news for the phone; progress is not
    const ledger = second.host.workers.ledger;
    const id = ledger.plansOf("u1")[0]?.id ?? "";
    expect(ledger.attempts(id).map((a) => a.state)).toEqual(["LOST", "COMPLETED"]);
    expect(ledger.plan(id)?.status).toBe("done");
  });

  it("sort Downloads — a scan, then two movers in parallel, a progress message and a report", async () => {
    const s = await setup();
    const downloads = join(s.dir, "Downloads");
    mkdirSync(downloads);
    for (const name of ["cat.jpg", "beach.png", "taxes.pdf", "notes.docx"])
      writeFileSync(join(downloads, name), name);
    scriptPlan(s.model, {
      master: [
        delegateCall("sort my Downloads folder: pictures to Pictures, documents to Documents", [
          { id: "scan", objective: "scan Downloads and classify the files", skills: ["run_shell"] },
          {
            id: "pictures",
            objective: "move the pictures to Pictures",
            skills: ["run_shell"],
            depends_on: ["scan"],
          },
          {
            id: "documents",
            objective: "move the documents to Documents",
            skills: ["run_shell"],
            depends_on: ["scan"],
          },
        ]),
        { text: "Split into 3 parts; I'll report when done." },
      ],
      worker: (task, request) => {
        const step = stepOf(request);
        if (task.objective.startsWith("scan"))
          return step === 0
            ? shell("ls Downloads")
            : workerJson(`files: ${s.model.toolResults(request).join(" ").replace(/\s+/g, " ")}`);
        const [dest, pattern] = task.objective.includes("pictures")
          ? ["Pictures", "*.jpg *.png"]
          : ["Documents", "*.pdf *.docx"];
        return step === 0
          ? shell(`mkdir -p ${dest} && cd Downloads && mv ${pattern} ../${dest}/`)
          : workerJson(`moved to ${dest}`);
      },
      report: (request) => ({
        text: `Task complete. Summary: ${/moved to Pictures/.test(reportInput(request)) ? "2 pictures and 2 documents moved" : "?"}`,
      }),
    });
    const answer = await s.ask(
      "r1",
      "sort my Downloads folder: pictures to Pictures, documents to Documents",
    );
    expect(answer.text).toBe("Split into 3 parts; I'll report when done.");
    const report = await s.report();
    expect(report.text).toBe("Task complete. Summary: 2 pictures and 2 documents moved");
    expect(readdirSync(join(s.dir, "Pictures")).sort()).toEqual(["beach.png", "cat.jpg"]);
    expect(readdirSync(join(s.dir, "Documents")).sort()).toEqual(["notes.docx", "taxes.pdf"]);
    expect(readdirSync(downloads)).toEqual([]);
    // One progress message, kept up to date under one key, ending with every worker finished.
    const progress = s.router.latest().inbox.frames.filter((f) => f.type === "notify" && f.edit_key);
    expect(new Set(progress.map((f) => f.edit_key)).size).toBe(1);
    expect(progress.length).toBeGreaterThan(2);
    expect(String(progress[0]?.text)).toMatch(/Worker-1 running \[scan\]/);
    const last = String(progress.at(-1)?.text);
    expect(last).toMatch(/^📋 Plan p[0-9a-f]{4} · finished: 3\/3 done — sort my Downloads/);
    expect(last).toMatch(/✅ Worker-\d finished \[pictures\]/);
    expect(last).toMatch(/✅ Worker-\d finished \[documents\]/);
  });
});
