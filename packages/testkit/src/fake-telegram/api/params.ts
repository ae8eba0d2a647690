import { z } from "zod";
import { badRequest } from "./errors.ts";
import { UploadedFile } from "./request.ts";

// Method parameters as the Bot API accepts them: JSON values, or strings from a query string, a
// urlencoded body or a multipart field (numbers, booleans and objects then arrive as text).

const fromText = (convert: (text: string) => unknown) => (value: unknown) =>
  typeof value === "string" ? convert(value) : value;

const parseJsonText = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export const int = z.preprocess(
  fromText((text) => (/^-?\d+$/.test(text.trim()) ? Number(text) : text)),
  z.number().int(),
);

export const bool = z.preprocess(
  fromText((text) => (text === "true" ? true : text === "false" ? false : text)),
  z.boolean(),
);

/** A JSON-serialized object or array (reply_markup, allowed_updates, commands…). */
export const json = <T extends z.ZodType>(schema: T) => z.preprocess(fromText(parseJsonText), schema);

/** `chat_id`: an integer id, or "@username" for groups and channels. */
export const chatId = z.union([int, z.string().regex(/^@\w+$/)]);

export const parseMode = z.enum(["HTML", "MarkdownV2", "Markdown"]);

/** A file parameter: an upload (multipart part or attach://name) or an existing file_id. */
export const inputFile = z.union([z.instanceof(UploadedFile), z.string().min(1)]);

const EMPTY: Record<string, string> = { text: "message text is empty" };

/** Validates `params`; the first problem becomes a Bot API 400, worded like the real ones. */
export function parseParams<T extends z.ZodType>(schema: T, params: Record<string, unknown>): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? "parameters");
  if (params[field] === undefined || params[field] === "")
    throw badRequest(EMPTY[field] ?? `${field} is empty`);
  throw badRequest(`field "${field}" has wrong type or value`);
}
