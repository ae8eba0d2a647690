import { waitFor } from "../shared/wait-for.ts";

// Every Bot API call the fake received, in order, with its parsed parameters (uploads recorded as
// filename/contentType/size) and, once answered, the status and result it got.

export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  /** Arrival time (ms since the epoch, from the fake's clock). */
  at: number;
  via: "http" | "webhook-reply";
  /** HTTP status of the answer; undefined while in flight or when the client went away first. */
  status?: number;
  result?: unknown;
  description?: string;
}

export class CallLog {
  readonly calls: TelegramCall[] = [];

  record(
    method: string,
    params: Record<string, unknown>,
    at: number,
    via: TelegramCall["via"],
  ): TelegramCall {
    // A JSON round trip: uploads become their descriptions and the record cannot alias live state.
    const call: TelegramCall = { method, params: JSON.parse(JSON.stringify(params)), at, via };
    this.calls.push(call);
    return call;
  }

  of(method: string): TelegramCall[] {
    return this.calls.filter((call) => call.method.toLowerCase() === method.toLowerCase());
  }

  /** The first answered call of `method` (past or future) that `predicate` accepts. */
  waitFor(
    method: string,
    predicate: (call: TelegramCall) => boolean = () => true,
    timeoutMs = 5_000,
  ): Promise<TelegramCall> {
    return waitFor(() => this.of(method).find((call) => call.status !== undefined && predicate(call)), {
      timeoutMs,
      intervalMs: 5,
      message: `a ${method} call`,
    });
  }
}
