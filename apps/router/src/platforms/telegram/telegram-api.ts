import { Api } from "grammy";
import { retryControlCalls } from "./control-retry.ts";

// The Bot API client every Telegram call goes through: the adapter's, and `phonework doctor`'s
// token check, so the doctor asks with the very client (and bundle) the router would run.

export { GrammyError, HttpError } from "grammy";

const DEFAULT_API_ROOT = "https://api.telegram.org";

/** TELEGRAM_API_ROOT (another Bot API server, the fake in tests) or Telegram's, without a trailing slash. */
export function telegramApiRoot(apiRoot?: string): string {
  return (apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, "");
}

// grammY types its signals as the abort-controller polyfill's; at run time it takes any AbortSignal.
type GrammySignal = Parameters<Api["getMe"]>[0];
export const grammySignal = (signal: AbortSignal) => signal as unknown as GrammySignal;

export function createTelegramApi(token: string, apiRoot?: string): Api {
  const api = new Api(token, { apiRoot: telegramApiRoot(apiRoot) });
  retryControlCalls(api);
  return api;
}
