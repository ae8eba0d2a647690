import { BotApiError, defaultDescription, tooManyRequests } from "./api/errors.ts";

// Scripted failures: the next `times` calls of a method answer with the fault instead of running.
// 429 comes with parameters.retry_after as the real flood control sends it; `delayMs` holds the answer
// back first (with no status, the call then runs normally: a slow server); `body` sends raw text
// instead of JSON, as a proxy's HTML error page would be.

export interface TelegramFault {
  status?: number;
  description?: string;
  /** Seconds, for a 429 (default 1). */
  retryAfter?: number;
  delayMs?: number;
  /** A raw, non-JSON body to answer with (e.g. an HTML 502 page). */
  body?: string;
  /** How many calls it applies to (default 1). */
  times?: number;
}

interface Armed {
  method: string | RegExp;
  fault: TelegramFault;
  remaining: number;
}

export class FaultQueue {
  private readonly armed: Armed[] = [];

  add(method: string | RegExp, fault: TelegramFault): void {
    this.armed.push({ method, fault, remaining: fault.times ?? 1 });
  }

  take(method: string): TelegramFault | undefined {
    const index = this.armed.findIndex((armed) =>
      typeof armed.method === "string"
        ? armed.method.toLowerCase() === method.toLowerCase()
        : new RegExp(armed.method.source, armed.method.flags.replace("g", "")).test(method),
    );
    const armed = this.armed[index];
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed.splice(index, 1);
    return armed.fault;
  }
}

/** The error a fault answers with; undefined for a pure delay. */
export function faultError(fault: TelegramFault): BotApiError | undefined {
  if (fault.status === undefined) return undefined;
  if (fault.status === 429 && fault.description === undefined) return tooManyRequests(fault.retryAfter ?? 1);
  const parameters = fault.retryAfter !== undefined ? { retry_after: fault.retryAfter } : undefined;
  return new BotApiError(fault.status, fault.description ?? defaultDescription(fault.status), parameters);
}
