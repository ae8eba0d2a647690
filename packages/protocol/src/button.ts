import { z } from "zod";

/**
 * A button under a message, where the chat platform has buttons: pressing it is the same as the
 * user sending `command` (so a platform without buttons loses nothing — the text says the command).
 * Each row is answered once: after one press in a row, the row's other buttons say so.
 */
export const Button = z.object({
  label: z.string().min(1).max(64),
  command: z.string().min(1).max(256),
});
export type Button = z.infer<typeof Button>;
