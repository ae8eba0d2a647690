import type { IdSource } from "./ids.ts";
import type { SlackFileInfo } from "./types.ts";

// What Slack sends the app, built once for both ways in (Socket Mode envelopes, signed HTTP posts):
// an event_callback with a message or app_mention, a slash command, a block_actions press.

export interface MessageInput {
  user: string;
  channel: string;
  /** im for DMs (default when the channel is a D…), channel otherwise. */
  channelType?: string;
  text: string;
  threadTs?: string;
  files?: SlackFileInfo[];
  /** app_mention instead of message. */
  mention?: boolean;
  subtype?: string;
  botId?: string;
}

export function eventCallback(
  ids: IdSource,
  teamId: string,
  botUserId: string,
  input: MessageInput,
): { eventId: string; ts: string; body: Record<string, unknown> } {
  const ts = ids.ts();
  const eventId = ids.next("Ev");
  const event = {
    type: input.mention ? "app_mention" : "message",
    ...(input.subtype ? { subtype: input.subtype } : {}),
    user: input.user,
    text: input.text,
    ts,
    channel: input.channel,
    ...(input.mention
      ? {}
      : { channel_type: input.channelType ?? (input.channel.startsWith("D") ? "im" : "channel") }),
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.files ? { files: input.files } : {}),
    ...(input.botId ? { bot_id: input.botId } : {}),
    event_ts: ts,
    team: teamId,
  };
  return {
    eventId,
    ts,
    body: {
      token: "legacy-verification-token",
      team_id: teamId,
      api_app_id: "AFAKEAPP",
      event,
      type: "event_callback",
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
    },
  };
}

export interface SlashInput {
  user: string;
  userName?: string;
  channel: string;
  command: string;
  text?: string;
}

export function slashCommand(ids: IdSource, teamId: string, input: SlashInput): Record<string, string> {
  return {
    token: "legacy-verification-token",
    team_id: teamId,
    channel_id: input.channel,
    channel_name: input.channel.startsWith("D") ? "directmessage" : "general",
    user_id: input.user,
    user_name: input.userName ?? input.user.toLowerCase(),
    command: input.command,
    text: input.text ?? "",
    api_app_id: "AFAKEAPP",
    response_url: "https://hooks.slack.com/commands/fake",
    trigger_id: ids.next("trigger."),
  };
}

export interface PressInput {
  user: string;
  channel: string;
  messageTs: string;
  threadTs?: string;
  value: string;
}

export function blockActions(ids: IdSource, teamId: string, input: PressInput): Record<string, unknown> {
  return {
    type: "block_actions",
    user: { id: input.user, username: input.user.toLowerCase(), team_id: teamId },
    api_app_id: "AFAKEAPP",
    token: "legacy-verification-token",
    container: {
      type: "message",
      message_ts: input.messageTs,
      channel_id: input.channel,
      is_ephemeral: false,
    },
    trigger_id: ids.next("trigger."),
    team: { id: teamId },
    channel: { id: input.channel, name: "general" },
    message: {
      type: "message",
      ts: input.messageTs,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
    response_url: "https://hooks.slack.com/actions/fake",
    actions: [
      {
        action_id: "pw-0-0",
        block_id: "b",
        type: "button",
        value: input.value,
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
}
