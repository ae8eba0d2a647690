import { z } from "zod";

// The parts of Discord's gateway dispatches the adapter reads, checked at the boundary: only the
// fields used, each loosely (Discord adds fields freely), so a shape we do not know is ignored
// with a reason instead of crashing the gateway loop.

const Snowflake = z.string().regex(/^\d{1,20}$/);

export const userSchema = z.looseObject({
  id: Snowflake,
  username: z.string().optional(),
  global_name: z.string().nullish(),
  bot: z.boolean().optional(),
});
export type DiscordUser = z.infer<typeof userSchema>;

export const attachmentSchema = z.looseObject({
  id: Snowflake,
  filename: z.string(),
  size: z.number().int().nonnegative().optional(),
  url: z.string(),
  content_type: z.string().optional(),
  /** Set on voice messages: their audio is an attachment of its own. */
  duration_secs: z.number().optional(),
});
export type DiscordAttachment = z.infer<typeof attachmentSchema>;

export const messageSchema = z.looseObject({
  id: Snowflake,
  channel_id: Snowflake,
  guild_id: Snowflake.optional(),
  /** Sent with MESSAGE_CREATE: 1 is a DM (the only sign of one besides a missing guild_id). */
  channel_type: z.number().int().optional(),
  author: userSchema,
  /** Set on messages a webhook posted: no user wrote them. */
  webhook_id: Snowflake.optional(),
  content: z.string().default(""),
  type: z.number().int().default(0),
  mentions: z.array(z.looseObject({ id: Snowflake })).default([]),
  attachments: z.array(attachmentSchema).default([]),
  sticker_items: z.array(z.unknown()).optional(),
  embeds: z.array(z.unknown()).optional(),
  poll: z.unknown().optional(),
  message_reference: z.looseObject({ message_id: Snowflake.optional() }).optional(),
  referenced_message: z.looseObject({ author: userSchema.optional() }).nullish(),
});
export type DiscordMessage = z.infer<typeof messageSchema>;

const commandOptionSchema: z.ZodType<CommandOption> = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    type: z.number().int(),
    value: z.union([z.string(), z.number(), z.boolean()]).optional(),
    options: z.array(commandOptionSchema).optional(),
  }),
);
export interface CommandOption {
  name: string;
  type: number;
  value?: string | number | boolean | undefined;
  options?: CommandOption[] | undefined;
}

export const interactionSchema = z.looseObject({
  id: Snowflake,
  application_id: Snowflake,
  /** 2: an application (slash) command; 3: a message component (a button). */
  type: z.number().int(),
  token: z.string().min(1),
  channel_id: Snowflake.optional(),
  channel: z.looseObject({ id: Snowflake, type: z.number().int() }).optional(),
  guild_id: Snowflake.optional(),
  /** In a guild the presser is a member; in a DM a user. */
  member: z.looseObject({ user: userSchema }).optional(),
  user: userSchema.optional(),
  data: z
    .looseObject({
      name: z.string().optional(),
      custom_id: z.string().optional(),
      component_type: z.number().int().optional(),
      options: z.array(commandOptionSchema).optional(),
    })
    .optional(),
  message: z.looseObject({ id: Snowflake }).optional(),
});
export type DiscordInteraction = z.infer<typeof interactionSchema>;

export const readySchema = z.looseObject({
  user: userSchema,
  application: z.looseObject({ id: Snowflake }),
});
