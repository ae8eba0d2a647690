import { join } from "node:path";
import { HostConfigSchema } from "../apps/host/src/config/host-config.ts";
import { createHost, type Host } from "../apps/host/src/create-host.ts";
import type { PlanLedger } from "../apps/host/src/workers/plan-ledger.ts";
import { openRouterDatabase } from "../apps/router/src/database/router-db.ts";
import { createLogger } from "../packages/runtime/src/logger.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../packages/testkit/src/fake-openai.ts";
import { kindOf, workerJson } from "../packages/testkit/src/plan-script.ts";
import { waitFor } from "../packages/testkit/src/shared/wait-for.ts";
import type { Cleanup } from "./cleanup.ts";
import { type InProcessRouter, startInProcessRouter } from "./in-process-router.ts";
import { BENCH_SECRET } from "./router-control.ts";
import { tempDir } from "./temp-dir.ts";

// Master/Worker in the bench's process: a real router (memory chat adapter, where plan progress
// and reports land), two real hosts on it, "master" and "worker-node", and the fake OpenAI server
// answering every worker request with its final JSON at once, so each worker makes one request.

export const MASTER_ID = "master";
export const WORKER_NODE_ID = "worker-node";
/** The hosts' model settings, for a client that should make the very same requests. */
export const MODEL = { apiKey: "bench-key", model: "bench-model", maxRetries: 0 } as const;

export interface WorkerRig {
  readonly router: InProcessRouter;
  readonly master: Host;
  readonly model: FakeOpenAI;
  /** When the master's ledger has committed a subtask COMPLETED, and when a plan has ended. */
  readonly ledger: LedgerWatch;
  /** Resolves once both hosts' outboxes are empty: every progress message and report acknowledged. */
  quiet(): Promise<void>;
  /**
   * Sends a message from OWNER_USER that the router forwards to the master, and resolves with its
   * request: plans are started under one, as the master's assistant starts them while answering. The
   * router relays a plan's cross-host work only for a plan started under a request it forwarded there,
   * and at most 10 plans per request (plan-grants.ts).
   */
  request(): Promise<ForwardedRequest>;
}

export interface ForwardedRequest {
  requestId: string;
  /** The request's user and chat, as the router names them to hosts (the plans' owner). */
  owner: { userId: string; chatId: string; platform: string };
}

/** The user the bench's plans are for. */
export const OWNER_USER = "bench-user";

export interface LedgerWatch {
  /** performance.now() just after the transaction that recorded the subtask COMPLETED. */
  completed(planId: string, subtaskId: string): Promise<number>;
  /** Resolves once the plan is closed (its report written and handed to the outbox). */
  ended(planId: string): Promise<number>;
  /** How long each of the ledger's own transactions took, commit included, in ms. */
  readonly transactionMs: number[];
}

export async function startWorkerRig(cleanup: Cleanup): Promise<WorkerRig> {
  const model = await startFakeOpenAI();
  cleanup.add(() => model.close());
  model.fallback = (request) =>
    kindOf(request) === "report" ? { text: "Task complete." } : workerJson("ok");
  // Each plan pushes three messages (progress twice, the report): far over the default 60 a minute.
  // Opened here so the rig can read the request log; the router closes it.
  const db = openRouterDatabase(join(tempDir(cleanup, "router-db"), "router.db"));
  const router = await startInProcessRouter(cleanup, { PUSH_RATE_PER_MIN: 1_000_000 }, { db });

  const startHost = async (nodeId: string) => {
    const dir = tempDir(cleanup, nodeId);
    const host = createHost(
      HostConfigSchema.parse({
        ROUTER_URL: router.router.nodeUrl,
        ROUTER_SECRET: BENCH_SECRET,
        NODE_ID: nodeId,
        WORKING_DIR: dir,
        DATA_DIR: dir,
        OPENAI_API_KEY: MODEL.apiKey,
        OPENAI_MODEL: MODEL.model,
        OPENAI_BASE_URL: model.url,
        OPENAI_MAX_RETRIES: MODEL.maxRetries,
      }),
      { logger: createLogger({ level: "silent" }) },
    );
    host.start();
    cleanup.add(() => host.stop());
    await host.ready();
    return host;
  };
  const master = await startHost(MASTER_ID);
  const workerNode = await startHost(WORKER_NODE_ID);
  const quiet = async () => {
    await waitFor(() => master.outbox.pending() === 0 && workerNode.outbox.pending() === 0, {
      timeoutMs: 5000,
      intervalMs: 1,
    });
  };
  const newest = db.prepare(
    "SELECT id, user_id, chat_id, platform FROM requests WHERE node_id = ? ORDER BY at DESC, id DESC LIMIT 1",
  );
  type Row = { id: string; user_id: string; chat_id: string; platform: string };
  const request = async (): Promise<ForwardedRequest> => {
    const before = (newest.get(MASTER_ID) as Row | undefined)?.id;
    const answered = router.nextReply(OWNER_USER);
    router.chat.receive({ userId: OWNER_USER, text: `@${MASTER_ID} hello` });
    await answered;
    await quiet();
    const row = newest.get(MASTER_ID) as Row | undefined;
    if (!row || row.id === before)
      throw new Error("the router logged no new request forwarded to the master");
    return { requestId: row.id, owner: { userId: row.user_id, chatId: row.chat_id, platform: row.platform } };
  };
  return { router, master, model, ledger: watchLedger(master.workers.ledger), quiet, request };
}

type Deferred = { promise: Promise<number>; resolve: (at: number) => void };

/**
 * Wraps the ledger's two writes that matter here, and times its transactions. The time is read in a microtask queued from
 * inside the write, so it falls after the transaction (and its fsync) has committed.
 */
function watchLedger(ledger: PlanLedger): LedgerWatch {
  const pending = new Map<string, Deferred>();
  const entry = (key: string) => {
    let deferred = pending.get(key);
    if (!deferred) {
      let resolve: (at: number) => void = () => {};
      const promise = new Promise<number>((r) => {
        resolve = r;
      });
      deferred = { promise, resolve };
      pending.set(key, deferred);
    }
    return deferred;
  };
  const settle = (key: string) => {
    const deferred = entry(key);
    queueMicrotask(() => deferred.resolve(performance.now()));
  };
  const take = (key: string) =>
    entry(key).promise.finally(() => {
      pending.delete(key);
    });

  const updateSubtask = ledger.updateSubtask.bind(ledger);
  ledger.updateSubtask = (planId, id, changes) => {
    updateSubtask(planId, id, changes);
    if (changes.state === "COMPLETED") settle(`subtask ${planId}/${id}`);
  };
  const updatePlan = ledger.updatePlan.bind(ledger);
  ledger.updatePlan = (id, changes) => {
    updatePlan(id, changes);
    if (changes.status !== undefined && changes.status !== "running") settle(`plan ${id}`);
  };
  const transactionMs: number[] = [];
  const transaction = ledger.transaction.bind(ledger);
  let depth = 0; // a nested call joins the outer transaction: only the outer one commits
  ledger.transaction = <T>(fn: () => T): T => {
    const started = performance.now();
    depth++;
    try {
      return transaction(fn);
    } finally {
      if (--depth === 0) transactionMs.push(performance.now() - started);
    }
  };
  return {
    transactionMs,
    completed: (planId, subtaskId) => take(`subtask ${planId}/${subtaskId}`),
    ended: (planId) => take(`plan ${planId}`),
  };
}
