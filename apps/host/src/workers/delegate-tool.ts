import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../contracts/tool.ts";
import { formatPlanDetail, formatWorkers } from "./plan-format.ts";
import type { PlanLedger } from "./plan-ledger.ts";
import type { PlanRunner } from "./plan-runner.ts";
import { checkPlan, DelegateArgs, estimateMinutes, type PlanLimits } from "./plan-spec.ts";
import type { WorkerPool } from "./worker-pool.ts";

// The master's two tools: `delegate` hands a plan to the runner and returns at once (the user
// keeps chatting while it runs); `plan_status` answers "how is it going?".

export interface PlanToolDeps {
  runner: PlanRunner;
  ledger: PlanLedger;
  pool: WorkerPool;
  /** Everything but the user's other nodes, which come with each request. */
  limits: Omit<PlanLimits, "peers">;
  now: () => number;
}

/** "Worker-1…3" for the first slots, else the names as they are. */
function workersText(workers: string[]): string {
  const unique = [...new Set(workers)];
  if (unique.length === 0) return "the next free worker";
  const local = unique.every((name, index) => name === `Worker-${index + 1}`);
  if (local && unique.length > 2) return `Worker-1…${unique.length}`;
  return unique.join(", ");
}

export function createPlanTools(deps: PlanToolDeps): Tool[] {
  const delegate = defineTool({
    name: "delegate",
    description:
      "Split a big request into subtasks that ephemeral workers run in parallel (here, or on another of the user's " +
      "nodes with `node`), and report when all are done. Use it for work with independent parts or several machines; " +
      "answer simple requests yourself. Each worker sees only its objective, context, the results of its depends_on " +
      "subtasks and the tools in its skills. Returns at once; the user gets a progress message and a final report.",
    schema: DelegateArgs,
    describe: (args) => `splitting into ${args.subtasks.length} subtasks`,
    async execute(args, ctx) {
      const check = checkPlan(args, { ...deps.limits, peers: ctx.peers ?? [] });
      if (!check.ok) throw new ToolError(check.reason);
      const owner = { userId: ctx.userId, chatId: ctx.chatId, platform: ctx.platform };
      const { plan, workers } = deps.runner.start(owner, args.goal, check.subtasks, ctx.requestId);
      const waiting = check.subtasks.length - workers.length;
      return [
        `Split into ${check.subtasks.length} parts, running on ${workersText(workers)}${waiting > 0 ? ` (${waiting} waiting for inputs or a free worker)` : ""}, about ${estimateMinutes(check.subtasks)} min.`,
        `Plan ${plan.id}: the user can watch it with /plans ${plan.id} and cancel it with /stop.`,
        "Tell the user this in one or two lines; the progress message and the final report reach them on their own.",
      ].join(" ");
    },
  });

  const planStatus = defineTool({
    name: "plan_status",
    description:
      "How the user's plan is going: each subtask's state, worker, node, attempts and time (default: the latest plan).",
    schema: z.object({ plan_id: z.string().max(32).optional().describe("e.g. p3f2a") }),
    async execute(args, ctx) {
      const plans = deps.ledger.plansOf(ctx.userId, 20);
      const plan = args.plan_id
        ? plans.find((p) => p.id === args.plan_id?.trim())
        : (plans.find((p) => p.status === "running") ?? plans[0]);
      if (!plan)
        throw new ToolError(args.plan_id ? `the user has no plan ${args.plan_id}` : "the user has no plans");
      const detail = formatPlanDetail(
        plan,
        deps.ledger.subtasks(plan.id),
        deps.ledger.attempts(plan.id),
        deps.now(),
      );
      return `${detail}\n\n${formatWorkers(deps.pool.states(), ctx.peers)}`;
    },
  });
  return [delegate, planStatus];
}
