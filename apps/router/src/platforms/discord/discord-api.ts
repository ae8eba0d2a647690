import { REST } from "@discordjs/rest";

// The REST clients every Discord call goes through: the adapter's, and `phonework doctor`'s token
// check. Two clients on purpose. Sends and edits are retried by the shared send queue, which
// honours retry_after: their client never waits out a rate limit or retries by itself (a second
// retry layer would multiply the waits and hide rate limits from the queue). Setting up (the
// gateway address, the command list) and answering interactions retry a little on their own.

const DEFAULT_API_URL = "https://discord.com/api";

/** DISCORD_API_URL (another Discord, the fake in tests) or Discord's, without a trailing slash. */
export function discordApiUrl(apiUrl?: string): string {
  return (apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, "");
}

export interface DiscordRest {
  /** Sends, edits, uploads: a rate limit is thrown (RateLimitError), nothing is retried here. */
  send: REST;
  /** Set-up, interaction answers, downloads' metadata: waits out rate limits, retries twice. */
  control: REST;
}

export function createDiscordRest(token: string, apiUrl?: string): DiscordRest {
  const api = discordApiUrl(apiUrl);
  const common = { api, version: "10", timeout: 15_000 };
  return {
    send: new REST({ ...common, retries: 0, rejectOnRateLimit: () => true }).setToken(token),
    control: new REST({ ...common, retries: 2 }).setToken(token),
  };
}
