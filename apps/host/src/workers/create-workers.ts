import type {
  HostFrame,
  WorkerCancelFrame,
  WorkerResultFrame,
  WorkerStatusFrame,
  WorkerTaskFrame,
} from "@phonework/protocol";
import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { HostCommand } from "../contracts/host-command.ts";
import type { Tool } from "../contracts/tool.ts";
import type { Outbox } from "../link/outbox.ts";
import { servesUserRule } from "../link/serves-user.ts";
import type { ModelClient } from "../model/model-client.ts";
import type { ContextOwner } from "../workspace/channel-context.ts";
import { createPlanTools } from "./delegate-tool.ts";
import { planCommands } from "./plan-commands.ts";
import { PlanLedger } from "./plan-ledger.ts";
import { createReportWriter } from "./plan-report.ts";
import { type PlanOwner, PlanRunner } from "./plan-runner.ts";
import { WORKER_SKILLS } from "./plan-spec.ts";
import { RemoteWork } from "./remote-work.ts";
import { WorkerPool } from "./worker-pool.ts";
import { runWorker, type WorkerRun, type WorkerTask } from "./worker-run.ts";

// Wires Master/Worker on a host: the ledger, the worker slots, the plan runner behind the
// delegate tool, and the service that runs subtasks other nodes send here.

type WorkerFrame = WorkerTaskFrame | WorkerStatusFrame | WorkerResultFrame | WorkerCancelFrame;

export interface WorkersDeps {
  config: Pick<
    HostConfig,
    | "NODE_ID"
    | "WORKERS"
    | "WORKER_TTL_S"
    | "MAX_SUBTASKS"
    | "WORKER_MAX_RETRIES"
    | "PLAN_PROGRESS_INTERVAL_S"
    | "AGENT_MAX_STEPS"
    | "SERVES_USERS"
  >;
  displayName: string;
  db: SqliteDatabase;
  /** Without a model there are no workers: the node neither delegates nor takes subtasks. */
  model: ModelClient | undefined;
  /** The assistant's tools; a worker gets those its skills name. */
  tools: Tool[];
  outbox: Outbox;
  /** A message to the user's chat through the outbox; the same `editKey` edits the same message. */
  notify: (owner: PlanOwner, text: string, editKey?: string) => void;
  /** To the router; false when the link is down. */
  send: (frame: HostFrame) => boolean;
  /** Adds the final report to the user's history, so the master knows what it reported. */
  /** Adds the plan's report to the chat's context. */
  remember: (owner: ContextOwner, text: string) => void;
  now: () => number;
  logger: Logger;
}

export interface Workers {
  /** delegate and plan_status (none without a model). */
  readonly tools: Tool[];
  readonly commands: HostCommand[];
  /** This node runs workers: it registers WORKERS_CAPABILITY. */
  readonly capable: boolean;
  readonly runner: PlanRunner;
  readonly ledger: PlanLedger;
  readonly pool: WorkerPool;
  handle(frame: WorkerFrame): void;
  /** Carries on with plans and work that were under way when the host stopped. */
  start(): void;
  close(): Promise<void>;
}

export function createWorkers(deps: WorkersDeps): Workers {
  const { config, model, outbox, now } = deps;
  const logger = deps.logger.child({ component: "workers" });
  const ledger = new PlanLedger(deps.db);
  const pool = new WorkerPool(config.WORKERS);
  const skillTools = deps.tools.filter((tool) => (WORKER_SKILLS as readonly string[]).includes(tool.name));
  const skills = skillTools.map((tool) => tool.name);

  const runLocal = async (task: WorkerTask, owner: PlanOwner, signal: AbortSignal): Promise<WorkerRun> => {
    if (!model) {
      const error = `node ${config.NODE_ID} has no model configured`;
      return {
        outcome: "failed",
        result: {
          task_id: task.taskId,
          status: "failed",
          result: error,
          artifacts: [],
          duration: 0,
          errors: [error],
        },
      };
    }
    return runWorker(
      task,
      {
        model,
        tools: skillTools.filter((tool) => task.skills.includes(tool.name)),
        maxSteps: config.AGENT_MAX_STEPS,
        now,
        logger: logger.child({ taskId: task.taskId }),
        owner,
      },
      signal,
    );
  };

  const { notify } = deps;

  const runner = new PlanRunner({
    ledger,
    pool,
    runLocal,
    send: deps.send,
    progress: notify,
    writeReport: createReportWriter(model, logger),
    deliverReport: (plan, text) => {
      const owner = { userId: plan.user_id, chatId: plan.chat_id, platform: plan.platform };
      notify(owner, text);
      try {
        deps.remember(owner, text);
      } catch (error) {
        logger.warn({ err: error, planId: plan.id }, "could not add the report to the history");
      }
    },
    now,
    logger,
    maxRetries: config.WORKER_MAX_RETRIES,
    progressIntervalMs: config.PLAN_PROGRESS_INTERVAL_S * 1000,
  });

  const remote = new RemoteWork({
    ledger,
    pool,
    runLocal,
    send: deps.send,
    enqueueResult: (frame, deliveryId) => void outbox.enqueue(frame, deliveryId),
    skills,
    servesUser: servesUserRule(config.SERVES_USERS),
    maxQueued: config.WORKERS * 4,
    now,
    logger,
  });

  const tools = model
    ? createPlanTools({
        runner,
        ledger,
        pool,
        limits: {
          maxSubtasks: config.MAX_SUBTASKS,
          defaultTtlS: config.WORKER_TTL_S,
          self: { nodeId: config.NODE_ID, displayName: deps.displayName },
          localSkills: skills,
        },
        now,
      })
    : [];

  return {
    tools,
    commands: planCommands(ledger, pool, now),
    capable: model !== undefined,
    runner,
    ledger,
    pool,
    handle(frame) {
      try {
        if (frame.type === "worker_task") remote.onTask(frame);
        else if (frame.type === "worker_cancel") remote.onCancel(frame);
        else if (frame.type === "worker_status") runner.onStatus(frame);
        else runner.onResult(frame);
      } catch (error) {
        logger.error({ err: error, type: frame.type }, "worker frame failed");
      }
    },
    start() {
      remote.resume();
      runner.resume();
    },
    async close() {
      await Promise.all([runner.close(), remote.close()]);
    },
  };
}
