// Scripted failures: the next `times` calls whose "METHOD /path" matches answer with the fault
// instead of running. A 429 comes as Discord sends it: `retry_after` (seconds) in the JSON body,
// Retry-After and X-RateLimit-* headers; a 5xx as a bare server error.

export interface DiscordFault {
  status: number;
  /** Seconds, for a 429 (default 0.2). */
  retryAfter?: number;
  /** A global rate limit (X-RateLimit-Global). */
  global?: boolean;
  /** How many calls it applies to (default 1). */
  times?: number;
}

interface Armed {
  route: string | RegExp;
  fault: DiscordFault;
  remaining: number;
}

export class FaultQueue {
  private readonly armed: Armed[] = [];

  add(route: string | RegExp, fault: DiscordFault): void {
    this.armed.push({ route, fault, remaining: fault.times ?? 1 });
  }

  /** `call` is "POST /channels/123/messages". */
  take(call: string): DiscordFault | undefined {
    const index = this.armed.findIndex(({ route }) =>
      typeof route === "string"
        ? call.startsWith(route)
        : new RegExp(route.source, route.flags.replace("g", "")).test(call),
    );
    const armed = this.armed[index];
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed.splice(index, 1);
    return armed.fault;
  }
}

export function faultAnswer(fault: DiscordFault): {
  status: number;
  body: unknown;
  headers: Record<string, string>;
} {
  if (fault.status !== 429)
    return { status: fault.status, body: { message: "Server error", code: 0 }, headers: {} };
  const retryAfter = fault.retryAfter ?? 0.2;
  const headers: Record<string, string> = {
    "retry-after": String(retryAfter),
    "x-ratelimit-limit": "5",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-reset-after": String(retryAfter),
    "x-ratelimit-bucket": "fake-bucket",
    "x-ratelimit-scope": fault.global ? "global" : "user",
    ...(fault.global ? { "x-ratelimit-global": "true" } : {}),
  };
  return {
    status: 429,
    body: { message: "You are being rate limited.", retry_after: retryAfter, global: fault.global ?? false },
    headers,
  };
}
