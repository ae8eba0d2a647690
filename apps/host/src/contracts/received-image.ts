// An image that came with a chat message, saved in the chat's attachments/ and made ready for a
// model: scaled to fit the bounds and encoded again, so what is sent never depends on what the
// sender's file claimed to be. Coding agents take it as they can (Claude Code: the bytes; Codex:
// the path).

export interface ReceivedImage {
  /** Absolute path of the file as it was saved (the sender's bytes, untouched). */
  path: string;
  /** The scaled copy's type: image/png or image/jpeg. */
  mimeType: "image/png" | "image/jpeg";
  /** The scaled copy, base64. */
  base64: string;
  width: number;
  height: number;
}

/** What a turn is given besides its text: the images, and whether the user wrote anything. */
export interface TurnImages {
  images: ReceivedImage[];
  /** Images that could not be used, with the sentence for the user (one per image). */
  refused: string[];
}
