import type { TelegramState } from "../state/state.ts";

// The shape of a Bot API method in the fake: parameters in, result out (or a thrown BotApiError).

export type MethodHandler = (
  state: TelegramState,
  params: Record<string, unknown>,
  /** Aborted when the caller goes away (long polls stop waiting). */
  signal: AbortSignal,
) => unknown;

/** A result with the `description` the real API adds to some answers ("Webhook was set"). */
export class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}
