import type { SlackFault } from "./types.ts";

// Scripted failures: the next `times` calls of a Web API method answer with the fault instead of
// running — a 429 with Retry-After, a 5xx, or ok:false with an error code.

export class FaultQueue {
  private readonly armed: Array<{ method: string; fault: SlackFault; remaining: number }> = [];

  add(method: string, fault: SlackFault): void {
    this.armed.push({ method, fault, remaining: fault.times ?? 1 });
  }

  take(method: string): SlackFault | undefined {
    const index = this.armed.findIndex((armed) => armed.method === method);
    const armed = this.armed[index];
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed.splice(index, 1);
    return armed.fault;
  }
}
