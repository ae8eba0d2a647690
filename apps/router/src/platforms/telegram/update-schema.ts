import { z } from "zod";

// The part of Telegram's Update the adapter reads, checked where it arrives: every field comes from
// the network (a webhook body, a getUpdates answer). Telegram adds fields often, so unknown ones are
// allowed; a message keeps them so that the kind of an unreadable message (a sticker…) can be named.

const int = z.number().int();

export const userSchema = z.object({
  id: int,
  is_bot: z.boolean(),
  first_name: z.string(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});

export const chatSchema = z.object({ id: int, type: z.string() });

export const entitySchema = z.object({
  type: z.string(),
  offset: int.nonnegative(),
  length: int.nonnegative(),
  /** For a text_mention: the user mentioned. */
  user: z.object({ id: int }).optional(),
});

const photoSizeSchema = z.object({
  file_id: z.string().min(1),
  file_unique_id: z.string().min(1),
  file_size: int.nonnegative().optional(),
  width: z.number(),
  height: z.number(),
});

const documentSchema = z.object({
  file_id: z.string().min(1),
  file_unique_id: z.string().min(1),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
  file_size: int.nonnegative().optional(),
});

/** A voice note (OGG/Opus) or an audio file; `file_name` only for the latter. */
const audioSchema = documentSchema.extend({ duration: int.nonnegative().optional() });

export const messageSchema = z.looseObject({
  message_id: int,
  from: userSchema.optional(),
  chat: chatSchema,
  text: z.string().optional(),
  entities: z.array(entitySchema).optional(),
  caption: z.string().optional(),
  caption_entities: z.array(entitySchema).optional(),
  document: documentSchema.optional(),
  photo: z.array(photoSizeSchema).optional(),
  voice: audioSchema.optional(),
  audio: audioSchema.optional(),
  reply_to_message: z.object({ message_id: int, from: userSchema.optional() }).optional(),
});

export const callbackQuerySchema = z.object({
  id: z.string().min(1),
  from: userSchema,
  /** Absent for a button on a message sent in inline mode (then there is no chat to name). */
  message: z.object({ message_id: int, chat: chatSchema }).optional(),
  data: z.string().optional(),
});

/** An update's id and which kind it is; its body is parsed by kind, so one bad field spoils only it. */
export const updateEnvelopeSchema = z.looseObject({ update_id: int.nonnegative() });

export type TelegramUser = z.infer<typeof userSchema>;
export type TelegramChat = z.infer<typeof chatSchema>;
export type TelegramEntity = z.infer<typeof entitySchema>;
export type TelegramMessage = z.infer<typeof messageSchema>;
export type TelegramCallbackQuery = z.infer<typeof callbackQuerySchema>;

/** The update_id of what claims to be an update, or undefined when it has none. */
export function updateIdOf(raw: unknown): number | undefined {
  const parsed = updateEnvelopeSchema.safeParse(raw);
  return parsed.success ? parsed.data.update_id : undefined;
}
