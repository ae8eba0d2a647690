import type { Button } from "@phonework/protocol";

// What a handler or a command answers: plain text, or text with buttons under it. A button is
// sent as data on the frame (the router draws it where the platform has buttons); the text must
// still say what to type, for the platforms that do not.

export interface Reply {
  text: string;
  /** Rows of buttons; pressing one is the same as the user sending its command. */
  buttons?: Button[][];
}

export type ReplyValue = string | Reply;

export const toReply = (value: ReplyValue): Reply => (typeof value === "string" ? { text: value } : value);

/** The wire allows this many rows of buttons under one message. */
export const MAX_BUTTON_ROWS = 20;
