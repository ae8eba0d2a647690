import type { WebhookInfo } from "grammy/types";
import { z } from "zod";
import { badRequest } from "../api/errors.ts";
import { bool, int, json, parseParams } from "../api/params.ts";
import { Described, type MethodHandler } from "./method.ts";

// setWebhook, deleteWebhook and getWebhookInfo. Simplified: any http(s) URL is accepted (the real
// API wants HTTPS on ports 443, 80, 88 or 8443), so a test's loopback server can receive.

const setParams = z.object({
  url: z.string(),
  secret_token: z.string().optional(),
  allowed_updates: json(z.array(z.string())).optional(),
  drop_pending_updates: bool.optional(),
  max_connections: int.optional(),
});
const deleteParams = z.object({ drop_pending_updates: bool.optional() });

const deleteWebhook: MethodHandler = (state, raw) => {
  const params = parseParams(deleteParams, raw);
  if (params.drop_pending_updates) state.updates.dropPending();
  const wasSet = state.webhook.config !== undefined;
  state.webhook.set(undefined);
  return new Described(true, wasSet ? "Webhook was deleted" : "Webhook is already deleted");
};

const setWebhook: MethodHandler = (state, raw) => {
  const params = parseParams(setParams, raw);
  if (params.url === "")
    return deleteWebhook(
      state,
      { drop_pending_updates: params.drop_pending_updates },
      new AbortController().signal,
    );
  if (!/^https?:\/\/[^/\s]+/.test(params.url) || !URL.canParse(params.url)) {
    throw badRequest("bad webhook: Failed to resolve host: Name or service not known");
  }
  if (params.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(params.secret_token)) {
    throw badRequest("secret token contains unallowed characters");
  }
  const maxConnections = params.max_connections ?? 40;
  if (maxConnections < 1 || maxConnections > 100)
    throw badRequest("bad webhook: max_connections must be between 1 and 100");
  if (params.drop_pending_updates) state.updates.dropPending();
  if (params.allowed_updates) state.updates.allowedUpdates = params.allowed_updates;
  state.webhook.set({ url: params.url, secretToken: params.secret_token, maxConnections });
  return new Described(true, "Webhook was set");
};

const getWebhookInfo: MethodHandler = (state): WebhookInfo => {
  const config = state.webhook.config;
  const lastError = state.webhook.lastError;
  return {
    url: config?.url ?? "",
    has_custom_certificate: false,
    pending_update_count: state.updates.pending().length,
    ...(config ? { max_connections: config.maxConnections, ip_address: "127.0.0.1" } : {}),
    ...(lastError ? { last_error_date: lastError.date, last_error_message: lastError.message } : {}),
    ...(state.updates.allowedUpdates.length
      ? { allowed_updates: state.updates.allowedUpdates as WebhookInfo["allowed_updates"] }
      : {}),
  };
};

export const webhookMethods = { setWebhook, deleteWebhook, getWebhookInfo };
