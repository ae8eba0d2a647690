import { type HostFrame, type RouterWorkerFrame, WORKERS_CAPABILITY } from "@phonework/protocol";
import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { HostCommand } from "../contracts/host-command.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { Tool } from "../contracts/tool.ts";
import type { UsageMeter } from "../contracts/usage-meter.ts";
import type { Outbox } from "../delivery/outbox.ts";
import { servesUserRule } from "../link/serves-user.ts";
import { meteredModel } from "../model/metered-model.ts";
import type { ModelClient } from "../model/model-client.ts";
import { createPlanTools } from "./delegate-tool.ts";
import { planCommands } from "./plan-commands.ts";
import { PlanLedger } from "./plan-ledger.ts";
import { type PlanOwner, planOwner } from "./plan-owner.ts";
import { createReportWriter } from "./plan-report.ts";
import { PlanRunner } from "./plan-runner.ts";
import { WORKER_SKILLS } from "./plan-spec.ts";
import { RemoteWork } from "./remote-work.ts";
import { WorkerPool } from "./worker-pool.ts";
import { runWorker, type WorkerRun, type WorkerTask } from "./worker-run.ts";

// Wires Master/Worker on a host: the ledger, the worker slots, the plan runner behind the
// delegate tool, and the service that runs subtasks other nodes send here.

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
  /** The tools a worker may be given: it gets those its skills name. */
  tools: readonly Tool[];
  outbox: Outbox;
  /** To the router; false when the link is down. */
  send: (frame: HostFrame) => boolean;
  /** Adds the plan's report to the chat's context. */
  remember: (owner: ChatOwner, text: string) => void;
  now: () => number;
  logger: Logger;
  /** Counts the workers' and reports' model calls; refuses them past a limit (usage/). */
  usage?: { meter: UsageMeter };
}

export interface Workers extends HostFeature<RouterWorkerFrame["type"]> {
  /** delegate and plan_status (none without a model): the assistant's, not its workers'. */
  readonly assistantTools: Tool[];
  readonly commands: HostCommand[];
  readonly runner: PlanRunner;
  readonly ledger: PlanLedger;
  readonly pool: WorkerPool;
  /** Carries on with plans and work that were under way when the host stopped. */
  start(): void;
  stop(): Promise<void>;
}

export function createWorkers(deps: WorkersDeps): Workers {
  const { config, model, outbox, now } = deps;
  const logger = deps.logger.child({ component: "workers" });
  const ledger = new PlanLedger(deps.db);
  const pool = new WorkerPool(config.WORKERS);
  const skillTools = deps.tools.filter((tool) => (WORKER_SKILLS as readonly string[]).includes(tool.name));
  const skills = skillTools.map((tool) => tool.name);

  const runLocal = localWorker(deps, skillTools, logger);

  /** A message to the user's chat through the outbox; the same `editKey` edits the same message. */
  const notify = (owner: PlanOwner, text: string, editKey?: string) =>
    void outbox.notify(owner, text, editKey ? { editKey } : {});

  const runner = new PlanRunner({
    ledger,
    pool,
    runLocal,
    send: deps.send,
    progress: notify,
    writeReport: createReportWriter(model, logger, deps.usage?.meter),
    deliverReport: (plan, text) => {
      const owner = planOwner(plan);
      // The final report is news for the user's phone too; progress edits are not.
      void outbox.notify(owner, text, { alert: "plan" });
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

  /** A frame that fails is logged; the link and the other plans carry on. */
  const guarded =
    <F extends RouterWorkerFrame>(handle: (frame: F) => void) =>
    (frame: F) => {
      try {
        handle(frame);
      } catch (error) {
        logger.error({ err: error, type: frame.type }, "worker frame failed");
      }
    };
  return {
    name: "workers",
    assistantTools: tools,
    commands: planCommands(ledger, pool, now),
    capabilities: () => (model !== undefined ? [WORKERS_CAPABILITY] : []),
    runner,
    ledger,
    pool,
    frames: {
      worker_task: guarded((frame) => remote.onTask(frame)),
      worker_cancel: guarded((frame) => remote.onCancel(frame)),
      worker_status: guarded((frame) => runner.onStatus(frame)),
      worker_result: guarded((frame) => runner.onResult(frame)),
    },
    start() {
      remote.resume();
      runner.resume();
    },
    async stop() {
      await Promise.all([runner.close(), remote.close()]);
    },
  };
}

/** Runs a subtask here: a worker with the tools its skills name, or a failure without a model. */
function localWorker(deps: WorkersDeps, skillTools: readonly Tool[], logger: Logger) {
  const { config, model, now } = deps;
  return async (task: WorkerTask, owner: PlanOwner, signal: AbortSignal): Promise<WorkerRun> => {
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
    const meter = deps.usage?.meter;
    const tag = { ...owner, kind: "worker" as const };
    return runWorker(
      task,
      {
        model: meter ? meteredModel(model, meter, tag) : model,
        tools: skillTools.filter((tool) => task.skills.includes(tool.name)),
        maxSteps: config.AGENT_MAX_STEPS,
        now,
        logger: logger.child({ taskId: task.taskId }),
        owner,
      },
      signal,
    );
  };
}
