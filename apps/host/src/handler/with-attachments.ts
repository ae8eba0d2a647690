import { type Inbox, withAttachmentLines } from "./inbox.ts";
import type { MessageHandler } from "./message-handler.ts";

// Saves a message's attachments into the inbox before the handler sees the message, and hands
// the handler the user's text with a line per file. A file that could not be saved is said in
// the text (for the model) and as a status line (for the user, whatever answers the message).

export function withAttachments(handler: MessageHandler, inbox: Inbox): MessageHandler {
  return {
    async handle(request, ctx) {
      if (!request.attachments?.length) return handler.handle(request, ctx);
      const result = await inbox.save(request.attachments);
      for (const file of result.skipped) ctx.progress(`⚠️ ${file.name} was not saved: ${file.reason}`);
      const { attachments: _saved, ...rest } = request;
      return handler.handle({ ...rest, text: withAttachmentLines(request.text, result) }, ctx);
    },
  };
}
