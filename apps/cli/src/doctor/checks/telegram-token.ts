import { type Check, fail, ok } from "../check.ts";

// Does Telegram (or the local Bot API server of TELEGRAM_API_ROOT) accept the bot token? Asked
// with getMe, as the bot's first call is. The token is in the URL, so no URL and no error message
// that could hold one is ever shown.

export const TELEGRAM_API_ROOT = "https://api.telegram.org";

export interface TelegramSettings {
  botToken: string;
  apiRoot?: string | undefined;
}

export async function checkTelegramToken(
  title: string,
  settings: TelegramSettings,
  options: { fetch: typeof fetch; timeoutMs: number },
): Promise<Check> {
  const root = (settings.apiRoot ?? TELEGRAM_API_ROOT).replace(/\/+$/, "");
  let status: number;
  let body: { ok?: unknown; result?: { username?: unknown }; error_code?: unknown; description?: unknown };
  try {
    const response = await options.fetch(`${root}/bot${settings.botToken}/getMe`, {
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    status = response.status;
    body = (await response.json().catch(() => ({}))) as typeof body;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const why =
      cause ?? ((error as Error).name === "TimeoutError" ? "no answer in time" : (error as Error).name);
    return fail(title, `cannot reach ${root} (${why})`, "check TELEGRAM_API_ROOT and this machine's network");
  }
  const username = body.result?.username;
  if (body.ok === true && typeof username === "string")
    return ok(title, `${root} accepts the bot token (@${username})`);
  const why =
    typeof body.error_code === "number"
      ? `${body.error_code}: ${String(body.description ?? "")}`
      : `HTTP ${status}`;
  return fail(title, `${root} refuses the bot token (${why})`, "copy the bot's token from @BotFather again");
}
