import type { Logger } from "@phonework/runtime";
import { LogLevel, type Logger as SlackLogger, WebClient } from "@slack/web-api";

// The Web API client every Slack call goes through: the adapter's, Socket Mode's
// apps.connections.open, and `phonework doctor`'s auth.test. It never waits out a 429 itself
// (rejectRateLimitedCalls) and never retries: the shared send queue owns retries and waits, so a
// rate limit is seen, and waited out, once.

const DEFAULT_API_URL = "https://slack.com/api/";

/** SLACK_API_URL (another server, the fake in tests) or Slack's, with the trailing slash the SDK wants. */
export function slackApiUrl(apiUrl?: string): string {
  return `${(apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, "")}/`;
}

/** No retries of its own: a failed call comes back at once, as a PlatformError, to the send queue. */
export const NO_RETRIES = { retries: 0 };

/**
 * The SDK's log lines through ours. Its debug lines carry request and event bodies (users'
 * messages), so they are dropped; its info is our debug.
 */
export function slackLogger(logger: Logger | undefined): SlackLogger {
  const line = (parts: unknown[]) => ({ slack: parts.map(String).join(" ") });
  return {
    debug: () => {},
    info: (...parts: unknown[]) => logger?.debug(line(parts), "Slack SDK"),
    warn: (...parts: unknown[]) => logger?.warn(line(parts), "Slack SDK"),
    error: (...parts: unknown[]) => logger?.error(line(parts), "Slack SDK"),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  };
}

/** `logger` absent: the SDK says nothing (the doctor reports the outcome itself). */
export function createSlackClient(
  token: string,
  options: { apiUrl?: string; logger?: Logger; timeoutMs?: number },
): WebClient {
  return new WebClient(token, {
    slackApiUrl: slackApiUrl(options.apiUrl),
    rejectRateLimitedCalls: true,
    retryConfig: NO_RETRIES,
    logger: slackLogger(options.logger),
    // A hung call must not hold a chat's send queue for ever.
    timeout: options.timeoutMs ?? 30_000,
  });
}
