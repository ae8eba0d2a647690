import { formatPlanProgress } from "./plan-format.ts";
import type { PlanLedger } from "./plan-ledger.ts";
import { type PlanOwner, planOwner } from "./plan-owner.ts";

// A plan's one progress message: rendered from the ledger, sent under the key `plan:<id>` so the
// router edits the same chat message, at most once per interval, and never twice with the same text
// (on a platform that cannot edit, each update is a new message).

export class PlanProgress {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly lastSent = new Map<string, number>();
  private readonly shown = new Map<string, string>();
  private closed = false;

  constructor(
    private readonly ledger: PlanLedger,
    private readonly send: (owner: PlanOwner, text: string, editKey: string) => void,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** Shows the plan's state now (`immediately`) or within the interval. */
  show(planId: string, immediately = false): void {
    if (this.closed) return;
    if (!immediately && this.timers.has(planId)) return; // an update is already on its way
    clearTimeout(this.timers.get(planId));
    const wait = immediately
      ? 0
      : Math.max(0, (this.lastSent.get(planId) ?? 0) + this.intervalMs - this.now());
    if (wait === 0) this.render(planId);
    else this.timers.set(planId, setTimeout(() => this.render(planId), wait).unref());
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
  }

  private render(planId: string): void {
    this.timers.delete(planId);
    const plan = this.ledger.plan(planId);
    if (!plan) return;
    const text = formatPlanProgress(plan, this.ledger.subtasks(planId), this.now());
    if (text === this.shown.get(planId)) return;
    this.shown.set(planId, text);
    this.lastSent.set(planId, this.now());
    this.send(planOwner(plan), text, `plan:${planId}`);
    if (plan.status !== "running") {
      this.shown.delete(planId);
      this.lastSent.delete(planId);
    }
  }
}
