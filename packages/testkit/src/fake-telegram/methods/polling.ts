import type { Update } from "grammy/types";
import { z } from "zod";
import { conflict } from "../api/errors.ts";
import { int, json, parseParams } from "../api/params.ts";
import type { MethodHandler } from "./method.ts";

// getUpdates: `offset` confirms every update below it (recorded, so a test can see when the bot
// acknowledged), `timeout` holds the request until an update arrives (capped by the fake's
// maxPollMs), `allowed_updates` replaces the setting. Refused with 409 while a webhook is set, and a
// newer getUpdates terminates a held one with 409, as the real server does.

const params = z.object({
  offset: int.optional(),
  limit: int.optional(),
  timeout: int.optional(),
  allowed_updates: json(z.array(z.string())).optional(),
});

const WEBHOOK_ACTIVE =
  "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first";
const TERMINATED = "terminated by other getUpdates request; make sure that only one bot instance is running";

const getUpdates: MethodHandler = async (state, raw, signal): Promise<Update[]> => {
  const p = parseParams(params, raw);
  if (state.webhook.config) throw conflict(WEBHOOK_ACTIVE);
  state.activePoll?.abort();
  const mine = new AbortController();
  state.activePoll = mine;
  try {
    if (p.allowed_updates) state.updates.allowedUpdates = p.allowed_updates;
    if (p.offset) state.updates.confirm(p.offset, "getUpdates", state.now());
    const limit = Math.min(Math.max(p.limit ?? 100, 1), 100);
    const deadline = Date.now() + Math.min(Math.max(p.timeout ?? 0, 0) * 1000, state.maxPollMs);
    const stop = AbortSignal.any([signal, mine.signal]);
    for (;;) {
      if (mine.signal.aborted) throw conflict(TERMINATED);
      const batch = state.webhook.config ? [] : state.updates.deliverable(limit);
      if (batch.length || state.webhook.config || signal.aborted || Date.now() >= deadline) return batch;
      await state.updates.waitForChange(deadline - Date.now(), stop);
    }
  } finally {
    if (state.activePoll === mine) state.activePoll = undefined;
  }
};

export const pollingMethods = { getUpdates };
