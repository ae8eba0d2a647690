import { autoRetry } from "@grammyjs/auto-retry";
import type { Api } from "grammy";

// Retries for the calls the shared send queue does not own: setting up (getMe, the webhook, the
// command menu), answering button presses and fetching files. Sends and edits are left alone: the
// queue retries those itself, honouring retry_after, and a second retry layer here would multiply
// the waits and hide rate limits from it. The plugin is a grammY transformer, so it is applied per
// method. Bounded, so a start against a Telegram that stays down fails instead of hanging; network
// errors are rethrown because the plugin retries those without limit.

const CONTROL_METHODS = new Set([
  "getMe",
  "setWebhook",
  "deleteWebhook",
  "setMyCommands",
  "getFile",
  "answerCallbackQuery",
]);

export function retryControlCalls(api: Api): void {
  const retry = autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 30, rethrowHttpErrors: true });
  api.config.use((prev, method, payload, signal) =>
    CONTROL_METHODS.has(method) ? retry(prev, method, payload, signal) : prev(method, payload, signal),
  );
}
