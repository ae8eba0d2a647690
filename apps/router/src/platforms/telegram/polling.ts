import type { Logger } from "@phonework/runtime";
import type { Api } from "grammy";
import { ALLOWED_UPDATES } from "./incoming-update.ts";
import { grammySignal } from "./telegram-api.ts";
import { describeError, toPlatformError } from "./telegram-error.ts";
import type { UpdateHandler } from "./update-handler.ts";
import { updateIdOf } from "./update-schema.ts";

// Long polling with getUpdates, written out rather than grammY's bot.start() so that the one rule
// that matters is plain to see: the offset passes an update only once its handler resolved. An
// update whose handler rejected ends the batch unconfirmed, and the next poll (after a pause) asks
// from that update again. Telegram confirms by offset, so nothing after it is confirmed either.

export interface PollingOptions {
  api: Api;
  handle: UpdateHandler;
  /** How long Telegram holds a getUpdates open when there is nothing new. */
  timeoutS: number;
  /** The first pause after a failed poll or a refused update; it doubles on each failure after. */
  retryMs: number;
  logger: Logger;
}

export interface Polling {
  readonly running: boolean;
  /** Aborts the long poll at once, then confirms what was handled. Does not wait for a handler. */
  stop(): Promise<void>;
}

const MAX_RETRY_MS = 30_000;
/** The confirming getUpdates at stop is a courtesy (redeliveries are deduped): it may not hold stop up. */
const CONFIRM_AT_STOP_MS = 1_000;

type Outcome = { kind: "ok" } | { kind: "failed"; waitMs?: number } | { kind: "fatal" };

export function startPolling(options: PollingOptions): Polling {
  const { api, logger } = options;
  const abort = new AbortController();
  const { signal } = abort;
  /** Every update below it was handled; sent with the next getUpdates, which confirms them. */
  let offset: number | undefined;
  let confirmed: number | undefined;
  let running = true;

  /** The handler's outcome, or "stopped" as soon as stop() is called (the handler runs on, unheard). */
  async function handled(raw: unknown): Promise<"handled" | "failed" | "stopped"> {
    if (signal.aborted) return "stopped";
    let onAbort = () => {};
    const stopped = new Promise<"stopped">((resolve) => {
      onAbort = () => resolve("stopped");
      signal.addEventListener("abort", onAbort, { once: true });
    });
    const outcome = options.handle(raw).then(
      () => "handled" as const,
      (error: unknown) => {
        logger.warn(
          { updateId: updateIdOf(raw), error: describeError(error) },
          "Telegram update not stored; it stays unconfirmed and comes again",
        );
        return "failed" as const;
      },
    );
    try {
      return await Promise.race([outcome, stopped]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async function pollOnce(): Promise<Outcome> {
    let updates: unknown;
    try {
      updates = await api.getUpdates(
        { offset, timeout: options.timeoutS, allowed_updates: [...ALLOWED_UPDATES] },
        grammySignal(signal),
      );
      confirmed = offset;
    } catch (error) {
      if (signal.aborted) return { kind: "ok" };
      const failure = toPlatformError(error);
      // A token Telegram does not know will not start working on its own.
      if (failure.details.status === 401 || failure.details.status === 404) {
        logger.error({ error: failure.message }, "Telegram polling stopped: the bot token was refused");
        return { kind: "fatal" };
      }
      logger.warn({ error: failure.message }, "Telegram getUpdates failed; polling again");
      return {
        kind: "failed",
        ...(failure.details.retryAfterMs ? { waitMs: failure.details.retryAfterMs } : {}),
      };
    }
    const batch = Array.isArray(updates) ? updates : [];
    let advanced = false;
    for (const raw of batch) {
      const updateId = updateIdOf(raw);
      if (updateId === undefined || (offset !== undefined && updateId < offset)) {
        logger.debug({ updateId }, "Telegram update without a usable update_id skipped");
        continue;
      }
      const result = await handled(raw);
      if (result === "stopped") return { kind: "ok" };
      if (result === "failed") return { kind: "failed" };
      offset = updateId + 1;
      advanced = true;
    }
    // A batch with nothing confirmable would come back at once: pause rather than spin.
    return batch.length && !advanced ? { kind: "failed" } : { kind: "ok" };
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      const outcome = await pollOnce();
      if (outcome.kind === "fatal") return;
      if (outcome.kind === "ok") {
        failures = 0;
        continue;
      }
      failures += 1;
      const backoff = Math.min(options.retryMs * 2 ** (failures - 1), MAX_RETRY_MS);
      await pause(Math.max(backoff, outcome.waitMs ?? 0), signal);
    }
  }

  const loop = run().finally(() => {
    running = false;
  });

  return {
    get running() {
      return running;
    },
    async stop() {
      abort.abort();
      await loop;
      if (offset === undefined || offset === confirmed) return;
      try {
        await api.getUpdates(
          { offset, limit: 1, timeout: 0 },
          grammySignal(AbortSignal.timeout(CONFIRM_AT_STOP_MS)),
        );
        confirmed = offset;
      } catch (error) {
        logger.debug({ error: describeError(error) }, "Telegram: handled updates not confirmed at stop");
      }
    },
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
