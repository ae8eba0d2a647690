import { z } from "zod";

// The parts of Slack's payloads the adapter reads, checked where they come in (Socket Mode envelopes
// and HTTP posts alike). Loose objects: Slack adds fields freely, and a field we do not read is no
// reason to refuse an event.

const fileSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  title: z.string().optional(),
  mimetype: z.string().optional(),
  size: z.number().optional(),
  url_private_download: z.string().optional(),
  url_private: z.string().optional(),
});

export const messageEventSchema = z.looseObject({
  type: z.enum(["message", "app_mention"]),
  subtype: z.string().optional(),
  channel: z.string().min(1),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string().min(1),
  thread_ts: z.string().optional(),
  files: z.array(fileSchema).optional(),
});

/** An Events API delivery: `events_api` over Socket Mode, `event_callback` over HTTP. */
export const eventCallbackSchema = z.looseObject({
  type: z.literal("event_callback"),
  event_id: z.string().min(1),
  event: z.looseObject({ type: z.string() }),
});

export const slashCommandSchema = z.looseObject({
  command: z.string().regex(/^\/[^\s/]+$/),
  text: z.string().default(""),
  user_id: z.string().min(1),
  user_name: z.string().optional(),
  channel_id: z.string().min(1),
  channel_name: z.string().optional(),
  trigger_id: z.string().min(1),
});

export const blockActionsSchema = z.looseObject({
  type: z.literal("block_actions"),
  user: z.looseObject({
    id: z.string().min(1),
    name: z.string().optional(),
    username: z.string().optional(),
  }),
  channel: z.looseObject({ id: z.string().min(1) }).optional(),
  container: z
    .looseObject({ message_ts: z.string().optional(), channel_id: z.string().optional() })
    .optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  trigger_id: z.string().optional(),
  actions: z
    .array(
      z.looseObject({
        action_id: z.string().optional(),
        value: z.string().optional(),
        action_ts: z.string().optional(),
      }),
    )
    .min(1),
});

export type SlackFile = z.infer<typeof fileSchema>;
export type MessageEvent = z.infer<typeof messageEventSchema>;
export type SlashCommand = z.infer<typeof slashCommandSchema>;
export type BlockActions = z.infer<typeof blockActionsSchema>;
