import { runAgentLoop } from "../apps/host/src/model/agent-loop.ts";
import { createOpenAIModelClient } from "../apps/host/src/model/model-client.ts";
import { createRunShellTool } from "../apps/host/src/shell/run-shell.ts";
import type { PlannedSubtask } from "../apps/host/src/workers/plan-spec.ts";
import { workerPrompt } from "../apps/host/src/workers/worker-prompt.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import { kindOf } from "../packages/testkit/src/plan-script.ts";
import type { Cleanup } from "./cleanup.ts";
import { type Figure, info } from "./figure.ts";
import { percentile, round, sortedCopy } from "./stats.ts";
import { tempDir } from "./temp-dir.ts";
import {
  type ForwardedRequest,
  MODEL,
  startWorkerRig,
  WORKER_NODE_ID,
  type WorkerRig,
} from "./worker-rig.ts";

// What handing one subtask to a worker costs over doing the same model turn directly: a plan of
// one subtask whose worker answers in one model request, run here and on another node, against
// that request made by the caller's own agent loop. The three alternate, so noise hits all alike.

const WARM_UP_ROUNDS = 20;
const ROUNDS = 200;
/** The router relays work for at most this many plans started under one request (plan-grants.ts). */
const PLANS_PER_REQUEST = 10;
/** Cross-host subtasks run every CROSS_EVERY rounds. */
const CROSS_EVERY = 2;
const OBJECTIVE = "count the files in the project folder";

/** The three timings, and the user the plans were started for (the requests' user, as hosts name it). */
type Sample = { local: number[]; cross: number[]; direct: number[]; ownerId: string };

/** From runner.start() to the master's ledger holding the subtask COMPLETED (the report is not timed). */
async function timeSubtask(
  rig: WorkerRig,
  node: string | undefined,
  under: ForwardedRequest,
): Promise<number> {
  const subtask: PlannedSubtask = {
    id: "s",
    objective: OBJECTIVE,
    context: "",
    skills: ["run_shell"],
    ttlS: 300,
    node,
    dependsOn: [],
  };
  const started = performance.now();
  const { plan } = rig.master.workers.runner.start(under.owner, OBJECTIVE, [subtask], under.requestId);
  const ended = rig.ledger.ended(plan.id);
  // A plan that ends without its subtask COMPLETED fails the part at once instead of waiting forever.
  const completed = await Promise.race([
    rig.ledger.completed(plan.id, subtask.id),
    ended.then(() => undefined),
  ]);
  if (completed === undefined) {
    const row = rig.master.workers.ledger.subtask(plan.id, subtask.id);
    throw new Error(`plan ${plan.id} ended with its subtask ${row?.state}: ${row?.last_error ?? "no error"}`);
  }
  // The next subtask starts once this plan's report and progress messages have been delivered, so
  // they are not timed alongside it.
  await ended;
  await rig.quiet();
  return completed - started;
}

/** The worker's model request (same prompt, same tool offered), made by a plain agent loop. */
function directCall(rig: WorkerRig, cleanup: Cleanup): () => Promise<number> {
  const dir = tempDir(cleanup, "direct");
  const model = createOpenAIModelClient({ ...MODEL, baseURL: rig.model.url });
  const tools = [createRunShellTool(dir)];
  const task = { taskId: "w-direct", objective: OBJECTIVE, context: "", skills: ["run_shell"], ttlS: 300 };
  const systemPrompt = workerPrompt(task, dir);
  const logger = createLogger({ level: "silent" });
  return async () => {
    const started = performance.now();
    const run = await runAgentLoop({
      model,
      tools,
      systemPrompt,
      history: [],
      input: `Do task ${task.taskId} now, then reply with only its JSON result.`,
      maxSteps: 12,
      context: {
        signal: AbortSignal.timeout(30_000),
        userId: "bench-user",
        chatId: "bench-user",
        platform: "memory",
        progress: () => {},
        sendFile: async () => {},
      },
      logger,
    });
    if (run.stopReason !== "done") throw new Error(`direct call ended ${run.stopReason}: ${run.reply}`);
    return performance.now() - started;
  };
}

async function runRounds(rig: WorkerRig, direct: () => Promise<number>, rounds: number): Promise<Sample> {
  let under = await rig.request();
  const sample: Sample = { local: [], cross: [], direct: [], ownerId: under.owner.userId };
  let plansUnder = 0;
  for (let round = 0; round < rounds; round++) {
    // A new request (untimed) before the router's 10 plans per request are used up.
    if (plansUnder >= PLANS_PER_REQUEST - 1) {
      under = await rig.request();
      plansUnder = 0;
    }
    sample.direct.push(await direct());
    sample.local.push(await timeSubtask(rig, undefined, under));
    plansUnder++;
    if (round % CROSS_EVERY === 0) {
      sample.cross.push(await timeSubtask(rig, WORKER_NODE_ID, under));
      plansUnder++;
    }
    // The memory adapter keeps every progress message and report; forget them as they come.
    rig.router.chat.sent.splice(0);
  }
  return sample;
}

export async function measureSubtaskOverhead(cleanup: Cleanup): Promise<Figure[]> {
  const rig = await startWorkerRig(cleanup);
  const direct = directCall(rig, cleanup);
  await runRounds(rig, direct, WARM_UP_ROUNDS); // JIT, the SDK's import, keep-alive connections
  const requestsBefore = rig.model.requests.length;
  rig.ledger.transactionMs.splice(0);
  const sample = await runRounds(rig, direct, ROUNDS);

  // Each worker and each direct call must have made exactly one model request (plus one report per plan).
  const seen = rig.model.requests.slice(requestsBefore);
  const workerRequests = seen.filter((r) => kindOf(r) === "worker").length;
  const expected = sample.local.length + sample.cross.length + sample.direct.length;
  if (workerRequests !== expected)
    throw new Error(`expected ${expected} one-step worker requests, the model saw ${workerRequests}`);
  const failed = rig.master.workers.ledger
    .plansOf(sample.ownerId, 10_000)
    .filter((plan) => plan.status !== "done");
  if (failed.length > 0) throw new Error(`${failed.length} plans did not end done`);

  const p = (values: number[], at: number) => percentile(sortedCopy(values), at);
  const [local50, cross50, direct50] = [p(sample.local, 50), p(sample.cross, 50), p(sample.direct, 50)];
  return [
    info(
      "direct call p50",
      round(direct50, 3),
      "ms",
      `${sample.direct.length} runs: runAgentLoop with the worker's prompt and tool, one model request (HTTP to the fake OpenAI server, final answer)`,
    ),
    info("direct call p99", round(p(sample.direct, 99), 3), "ms"),
    info(
      "local subtask p50",
      round(local50, 3),
      "ms",
      `${sample.local.length} plans of one subtask: runner.start() → subtask COMPLETED committed in the ledger. Includes the worker prompt, its scratch dir created and removed, the same one model request, 4 ledger commits, and the plan's first progress message (an outbox commit, then through the router to the chat) on the same thread`,
    ),
    info("local subtask p99", round(p(sample.local, 99), 3), "ms"),
    info(
      "cross-host subtask p50",
      round(cross50, 3),
      "ms",
      `${sample.cross.length} plans pinned to ${WORKER_NODE_ID}: as local, plus worker_task → router → worker node (recorded, worker_status back), its worker, the result committed to its outbox, worker_result → router → master. The ack that follows is not timed`,
    ),
    info("cross-host subtask p99", round(p(sample.cross, 99), 3), "ms"),
    info("local ÷ direct p50", round(local50 / direct50), "×"),
    info("cross-host ÷ direct p50", round(cross50 / direct50), "×"),
    info(
      "one master plan-ledger transaction p50",
      round(p(rig.ledger.transactionMs, 50), 3),
      "ms",
      `${rig.ledger.transactionMs.length} timed during the run (state.db, synchronous=FULL: an fsync each). On a subtask's path: the plan created, the attempt dispatched, RUNNING, COMPLETED, and the progress message's outbox commit; cross-host adds two commits on the worker node (the task recorded, its result put in the outbox)`,
    ),
  ];
}
