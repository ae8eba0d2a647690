import type { SqliteDatabase } from "@phonework/runtime";
import type { RequestOrigin } from "../delivery/request-log.ts";
import { ExpiringRows } from "../storage/expiring-rows.ts";

// Which plans a master node may run subtasks of on the user's other nodes. A node serves a user's
// requests, but never acts as that user on another node except for work that user started there:
// a plan is granted to its master only when a request the router itself forwarded to that master,
// for that user, started it (the task names the request; the router recorded where each went).
// The first task of a plan records the grant, so its later retries need the request no more than
// a plan that outlives the request's turn does; a grant expires with the request log's TTL.

export const PLAN_GRANTS_MIGRATION = `
  CREATE TABLE plan_grants (
    master TEXT NOT NULL,
    plan_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (master, plan_id)
  ) WITHOUT ROWID;
  CREATE INDEX plan_grants_request ON plan_grants (master, request_id);
  CREATE INDEX plan_grants_at ON plan_grants (at);`;

/** Plans one forwarded request may start: a turn that starts more is not the user's doing. */
export const MAX_PLANS_PER_REQUEST = 10;

/** What a subtask claims about where its plan came from. */
export interface PlanClaim {
  master: string;
  planId: string | undefined;
  requestId: string | undefined;
  userId: string;
}

export type GrantAnswer = { ok: true; origin: RequestOrigin } | { ok: false; message: string };

export class PlanGrants {
  private readonly select;
  private readonly insert;
  private readonly countForRequest;
  private readonly expiring;

  constructor(
    db: SqliteDatabase,
    private readonly requests: { originOf(nodeId: string, id: string): RequestOrigin | undefined },
    ttlMs: number,
    private readonly now: () => number,
  ) {
    this.select = db.prepare(
      "SELECT request_id, user_id, platform, chat_id FROM plan_grants WHERE master = ? AND plan_id = ?",
    );
    this.insert = db.prepare(
      "INSERT INTO plan_grants (master, plan_id, request_id, user_id, platform, chat_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.countForRequest = db.prepare(
      "SELECT count(*) AS n FROM plan_grants WHERE master = ? AND request_id = ?",
    );
    this.expiring = new ExpiringRows(db, "plan_grants", ttlMs, now);
  }

  /** Whether the claim holds, recording the plan's grant the first time; the origin is the router's own record. */
  check(claim: PlanClaim): GrantAnswer {
    const { master, planId, requestId, userId } = claim;
    if (!planId || !requestId)
      return {
        ok: false,
        message: `node "${master}" names no plan and request for this subtask (upgrade it); it may run its own work only`,
      };
    const granted = this.select.get(master, planId) as
      | { request_id: string; user_id: string; platform: string; chat_id: string }
      | undefined;
    if (granted) {
      if (granted.request_id !== requestId || granted.user_id !== userId)
        return { ok: false, message: `plan "${planId}" was not started by this user's request` };
      return {
        ok: true,
        origin: { nodeId: master, userId, platform: granted.platform, chatId: granted.chat_id },
      };
    }
    const origin = this.requests.originOf(master, requestId);
    if (!origin || origin.userId !== userId)
      return {
        ok: false,
        message: `no message from this user was forwarded to node "${master}" as request "${requestId}"`,
      };
    const { n } = this.countForRequest.get(master, requestId) as { n: number };
    if (n >= MAX_PLANS_PER_REQUEST)
      return { ok: false, message: `request "${requestId}" already started ${n} plans` };
    this.expiring.sweepIfDue();
    this.insert.run(master, planId, requestId, userId, origin.platform, origin.chatId, this.now());
    return { ok: true, origin };
  }
}
