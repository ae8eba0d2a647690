import { loadSlackApi } from "@phonework/router";
import { type Check, fail, ok } from "./check.ts";

// Does Slack (or the server of SLACK_API_URL) accept the bot token? Asked with auth.test through the
// router's own Web API client, as the adapter's first call is. Tokens travel in headers, never in a
// URL, and no error text that could hold one is shown: only Slack's error code.

export interface SlackSettings {
  botToken: string;
  apiUrl?: string | undefined;
}

export async function checkSlackToken(
  title: string,
  settings: SlackSettings,
  options: { timeoutMs: number },
): Promise<Check> {
  const { createSlackClient, slackApiUrl } = await loadSlackApi();
  const url = slackApiUrl(settings.apiUrl);
  const client = createSlackClient(settings.botToken, { apiUrl: url, timeoutMs: options.timeoutMs });
  try {
    const me = await client.auth.test();
    return ok(
      title,
      `${url} accepts the bot token (${me.team ?? "workspace"}, bot ${me.user ?? me.user_id})`,
    );
  } catch (error) {
    const { code, data } = (error ?? {}) as { code?: unknown; data?: { error?: unknown } };
    if (code === "slack_webapi_platform_error")
      return fail(
        title,
        `${url} refuses the bot token (${String(data?.error)})`,
        "copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page again",
      );
    return fail(
      title,
      `cannot reach ${url} (${typeof code === "string" ? code : "no answer"})`,
      "check SLACK_API_URL and this machine's network",
    );
  }
}
