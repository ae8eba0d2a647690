import type { OverviewChangedFrame } from "@phonework/protocol";

// "This user's overview may have changed", told to the router, which asks for the overview again if
// a console page of the user is open. Many changes come in bursts (a coding turn's progress lines,
// a plan's subtasks): they are gathered for `delayMs` and sent as one frame, at most 100 users each.
// Nothing is sent while the link is down: the router asks afresh once the node is back.

export interface OverviewChangesDeps {
  send: (frame: OverviewChangedFrame) => void;
  connected: () => boolean;
  delayMs: number;
}

const MAX_IDS = 100;

export class OverviewChanges {
  private readonly users = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: OverviewChangesDeps) {}

  changed(userId: string): void {
    if (!this.deps.connected()) return;
    this.users.add(userId);
    this.timer ??= setTimeout(() => this.flush(), this.deps.delayMs);
  }

  /** Sends what is gathered now (and stops the timer). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const ids = [...this.users];
    this.users.clear();
    if (!this.deps.connected()) return;
    for (let i = 0; i < ids.length; i += MAX_IDS)
      this.deps.send({ type: "overview_changed", user_ids: ids.slice(i, i + MAX_IDS) });
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.users.clear();
  }
}
