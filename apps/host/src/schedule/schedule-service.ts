import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { ScheduledJob } from "./job.ts";
import type { JobStore } from "./job-store.ts";
import { type PlanLimits, planJob, type ScheduleRequest } from "./plan-job.ts";
import type { Parsed } from "./when.ts";

// What the schedule tools and the /remind commands share: create (with replace_existing),
// list and cancel, each answering with a job or a clear error.

export interface Created {
  job: ScheduledJob;
  /** Pending jobs in the same chat that replace_existing cancelled. */
  replaced: number[];
}

export class ScheduleService {
  constructor(
    private readonly store: JobStore,
    private readonly limits: PlanLimits,
    private readonly now: () => number,
    private readonly transaction: <T>(fn: () => T) => T,
    /** A job cancelled by the user (the events directory deletes a periodic event's file). */
    private readonly onCancelled: (job: ScheduledJob) => void = () => {},
  ) {}

  create(
    request: ScheduleRequest & { replace_existing?: boolean | undefined },
    owner: ChatOwner,
    createdBy: string | null,
  ): Parsed<Created> {
    const planned = planJob(request, owner, this.now(), this.limits, createdBy);
    if (!planned.ok) return planned;
    // replace_existing cancels every pending job in this chat, then adds the new one.
    return {
      ok: true,
      value: this.transaction(() => ({
        replaced: request.replace_existing ? this.store.cancelPendingInChat(planned.value, createdBy) : [],
        job: this.store.create(planned.value),
      })),
    };
  }

  list(userId: string, includeFinished = false): ScheduledJob[] {
    return this.store.list(userId, includeFinished);
  }

  cancel(userId: string, id: number, by: string | null): Parsed<ScheduledJob> {
    const job = this.store.cancel(userId, id, by);
    if (job) {
      this.onCancelled(job);
      return { ok: true, value: job };
    }
    const existing = this.store.get(id);
    if (existing && existing.user_id === userId)
      return { ok: false, error: `#${id} is already ${existing.status}; only pending jobs can be cancelled` };
    return { ok: false, error: `there is no scheduled job #${id} (/reminders lists yours)` };
  }
}
