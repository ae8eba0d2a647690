import { z } from "zod";

// The conversation as stored and sent to the model (OpenAI chat format). A schema, because
// history is read back from disk.

export const ToolCall = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** A part of a user message: text, or an image as a data URL (sent for one turn, never stored). */
export const ContentPart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string() }) }),
]);
export type ContentPart = z.infer<typeof ContentPart>;

export const ChatMessage = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(ContentPart)]) }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCall).optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;
