import { PlatformError } from "../platform-adapter.ts";

// A failed Feishu Open API call, with what is needed to decide on a retry and to look it up with
// Feishu (its log_id). Only Feishu's answer is kept, never the request: that is the user's message.

export const RATE_LIMITED_CODE = 99991400;

export class FeishuError extends Error {
  override readonly name = "FeishuError";
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: number | undefined,
    /** From x-ogw-ratelimit-reset (seconds until the limit resets), when Feishu sent it. */
    readonly retryAfterMs: number | undefined,
    /** Feishu's id for the failed request, to quote to its support. */
    readonly logId?: string,
  ) {
    super(message);
  }

  get retriable(): boolean {
    return (
      this.status === undefined || // network error, timeout
      this.status === 429 ||
      this.status >= 500 ||
      this.code === RATE_LIMITED_CODE
    );
  }

  /** The shared layer's view: rate limited, worth retrying, or refused for good. */
  toPlatformError(): PlatformError {
    const rateLimited = this.status === 429 || this.code === RATE_LIMITED_CODE;
    const kind = rateLimited ? "rate_limited" : this.retriable ? "transient" : "permanent";
    return new PlatformError(kind, this.message, {
      ...(this.retryAfterMs !== undefined ? { retryAfterMs: this.retryAfterMs } : {}),
      ...(this.code !== undefined ? { code: this.code } : {}),
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.logId !== undefined ? { logId: this.logId } : {}),
    });
  }
}

/** Turns what the SDK throws or returns into a FeishuError. */
export function toFeishuError(error: unknown): FeishuError {
  if (error instanceof FeishuError) return error;
  const response = (
    error as { response?: { status?: number; headers?: Record<string, unknown>; data?: unknown } }
  )?.response;
  const data = (typeof response?.data === "object" ? response.data : {}) as FeishuAnswer;
  const reset = Number(response?.headers?.["x-ogw-ratelimit-reset"]);
  const headerLogId = response?.headers?.["x-tt-logid"];
  return new FeishuError(
    data?.msg ?? (error as Error)?.message ?? String(error),
    response?.status,
    data?.code,
    Number.isFinite(reset) && reset >= 0 ? reset * 1000 : undefined,
    logIdOf(data) ?? (typeof headerLogId === "string" ? headerLogId : undefined),
  );
}

/** Feishu's answer to a call: `{ code, msg, error: { log_id } }` when it failed. */
export interface FeishuAnswer {
  code?: number;
  msg?: string;
  error?: { log_id?: string };
}

export const logIdOf = (answer: FeishuAnswer | null | undefined): string | undefined =>
  typeof answer?.error?.log_id === "string" ? answer.error.log_id : undefined;

/** Runs a Feishu call, throwing what it throws as a PlatformError. */
export async function asPlatformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toFeishuError(error).toPlatformError();
  }
}
