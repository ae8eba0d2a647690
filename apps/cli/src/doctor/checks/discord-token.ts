import { type Check, fail, ok } from "./check.ts";

// Does Discord (or the API of DISCORD_API_URL) accept the bot token? One GET /users/@me, as the
// router's first REST call is authorised; no SDK needed for it. The token is a header, never shown.

export interface DiscordSettings {
  botToken: string;
  apiUrl?: string | undefined;
}

const DEFAULT_API_URL = "https://discord.com/api";

export async function checkDiscordToken(
  title: string,
  settings: DiscordSettings,
  options: { timeoutMs: number },
): Promise<Check> {
  const root = (settings.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, "");
  let response: Response;
  try {
    response = await fetch(`${root}/v10/users/@me`, {
      headers: { authorization: `Bot ${settings.botToken}` },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const name = (error as { name?: string }).name;
    const reason =
      name === "TimeoutError"
        ? "no answer in time"
        : ((error as { cause?: { code?: string } }).cause?.code ?? "network error");
    return fail(
      title,
      `cannot reach ${root} (${reason})`,
      "check DISCORD_API_URL and this machine's network",
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    return fail(
      title,
      `${root} refuses the bot token (HTTP ${response.status})`,
      "copy the bot's token from the Discord developer portal again (Bot → Reset Token)",
    );
  }
  const me = (await response.json().catch(() => ({}))) as { username?: string };
  return ok(title, `${root} accepts the bot token (${me.username ?? "bot"})`);
}
