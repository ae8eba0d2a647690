import { z } from "zod";
import type { ConfigIssue } from "./config-issues.ts";
import { optionalSecret } from "./platform-fields.ts";

// Slack's settings, shared by the flat SLACK_* keys and named adapters of type slack, so both accept
// and refuse the same values with the same words; and the check that each mode has its secret.

const botTokenMessage = "must be the app's bot token (xoxb-…, under OAuth & Permissions)";
const appTokenMessage =
  "must be an app-level token (xapp-…, under Basic Information, scope connections:write)";

const BOT_TOKEN = /^xoxb-[A-Za-z0-9-]+$/;
const APP_TOKEN = /^xapp-[A-Za-z0-9-]+$/;

const emptyIsUnset = (value: unknown) => (value === "" || value === null ? undefined : value);

export const slackBotToken = () =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : botTokenMessage) })
    .regex(BOT_TOKEN, botTokenMessage);

/** The flat key, which may be left empty (then Slack is off). */
export const optionalSlackBotToken = () =>
  z.preprocess(emptyIsUnset, z.string().regex(BOT_TOKEN, botTokenMessage).optional());

export const optionalSlackAppToken = () =>
  z.preprocess(emptyIsUnset, z.string().regex(APP_TOKEN, appTokenMessage).optional());

/** socket: Socket Mode (no public URL needed); http: Slack posts to /webhook/<name>. */
export const slackMode = () =>
  z.enum(["socket", "http"], { error: "must be socket or http" }).default("socket");

export const optionalSlackSigningSecret = optionalSecret;

/** What each mode cannot start without, and why. */
export function slackModeIssues(
  settings: { mode: "socket" | "http"; appToken?: string | undefined; signingSecret?: string | undefined },
  keys: { appToken: string; signingSecret: string; mode: string },
): ConfigIssue[] {
  if (settings.mode === "socket" && !settings.appToken)
    return [
      {
        key: keys.appToken,
        message: `is required with ${keys.mode}socket (the default): Socket Mode connects with the app-level token (xapp-…)`,
      },
    ];
  if (settings.mode === "http" && !settings.signingSecret)
    return [
      {
        key: keys.signingSecret,
        message: `is required with ${keys.mode}http, so that only Slack can post events (the app's Signing Secret, under Basic Information)`,
      },
    ];
  return [];
}

/**
 * A bot token is `xoxb-<workspace>-<bot>-<secret>`: the bot is the numbers before the secret (a
 * reinstall's new token is still the same bot). Never shown.
 */
export function slackIdentity(botToken: string): string {
  const [, workspace, bot] = botToken.split("-");
  return workspace && bot && /^\d+$/.test(workspace) && /^\d+$/.test(bot)
    ? `slack:${workspace}-${bot}`
    : `slack:${botToken}`;
}
