import { loadTelegramApi } from "@phonework/router";
import { type Check, fail, ok } from "./check.ts";

// Does Telegram (or the local Bot API server of TELEGRAM_API_ROOT) accept the bot token? Asked
// with getMe through the router's own grammY client (its API root, its retries), as the bot's first
// call is, so the doctor cannot pass while the router's client fails. The token is in the URL, so
// no URL and no error message that could hold one is ever shown.

export interface TelegramSettings {
  botToken: string;
  apiRoot?: string | undefined;
}

export async function checkTelegramToken(
  title: string,
  settings: TelegramSettings,
  options: { timeoutMs: number },
): Promise<Check> {
  const { createTelegramApi, telegramApiRoot, grammySignal, GrammyError, HttpError } =
    await loadTelegramApi();
  const root = telegramApiRoot(settings.apiRoot);
  try {
    const me = await createTelegramApi(settings.botToken, root).getMe(
      grammySignal(AbortSignal.timeout(options.timeoutMs)),
    );
    return ok(title, `${root} accepts the bot token (@${me.username})`);
  } catch (error) {
    if (error instanceof GrammyError)
      return fail(
        title,
        `${root} refuses the bot token (${error.error_code}: ${error.description})`,
        "copy the bot's token from @BotFather again",
      );
    const cause = error instanceof HttpError ? error.error : error;
    return fail(
      title,
      `cannot reach ${root} (${networkReason(cause)})`,
      "check TELEGRAM_API_ROOT and this machine's network",
    );
  }
}

/** The system error's code (ECONNREFUSED…), a timeout, or the error's name: never its message. */
function networkReason(error: unknown): string {
  const { code, name, cause } = (error ?? {}) as {
    code?: unknown;
    name?: unknown;
    cause?: { code?: unknown };
  };
  if (typeof code === "string") return code;
  if (typeof cause?.code === "string") return cause.code;
  if (name === "AbortError" || name === "TimeoutError") return "no answer in time";
  return typeof name === "string" ? name : "unknown error";
}
