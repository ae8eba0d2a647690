import type { HostCommand } from "../contracts/host-command.ts";
import { formatPlanDetail, formatPlanList, formatWorkers } from "./plan-format.ts";
import type { PlanLedger } from "./plan-ledger.ts";
import type { WorkerPool } from "./worker-pool.ts";

/** /plans and /plans <id>: the user's Master/Worker plans, without the model. */
export function planCommands(ledger: PlanLedger, pool: WorkerPool, now: () => number): HostCommand[] {
  return [
    {
      name: "plans",
      usage: "/plans [id]",
      description: "your plans; with an id: each subtask's state, worker, node, attempts and time",
      // It reports on work that is running: it must not wait behind the user's current message.
      immediate: true,
      async run(args, request) {
        const plans = ledger.plansOf(request.user_id, 20);
        const id = args.trim();
        if (!id)
          return `${formatPlanList(plans, (planId) => ledger.subtasks(planId))}\n${formatWorkers(pool.states(), request.nodes)}`;
        const plan = ledger.plan(id);
        // Another user's plan id is as unknown as a made-up one.
        if (!plan || plan.user_id !== request.user_id) return `No plan ${id}. /plans lists yours.`;
        return formatPlanDetail(plan, ledger.subtasks(id), ledger.attempts(id), now());
      },
    },
  ];
}
