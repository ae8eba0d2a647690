import type { ForwardFrame } from "@phonework/protocol";
import { ensurePrivateDir } from "@phonework/runtime";
import type { MessageHandler, ReceivedFile, RequestContext } from "../contracts/message-handler.ts";
import { toReply } from "../contracts/reply.ts";
import type { ChannelAccess } from "./channel-access.ts";
import type { ChannelLog } from "./channel-log.ts";
import { ChatCache } from "./chat-cache.ts";
import { type Inbox, type InboxResult, withAttachmentLines } from "./inbox.ts";
import { channelOf, type WorkspaceLayout } from "./workspace-layout.ts";

// Where a chat message enters the host's workspace, before the handler sees it: the sender gets
// access to the chat's directory, its files are saved in the chat's attachments/, and it is
// written to the chat's log.jsonl; the answer is logged too. The handler gets the user's text
// with a line per file. A file that could not be saved is said in the text (for the model) and
// as a status line (for the user, whatever answers the message).

export interface ChannelIntakeDeps {
  layout: WorkspaceLayout;
  inbox: Inbox;
  log: ChannelLog;
  access: ChannelAccess;
}

const NOTHING_SAVED: InboxResult = { saved: [], skipped: [] };

/** How many chats' scratch directories are remembered as made (chat ids come from outside). */
const REMEMBERED_SCRATCH = 256;

export function withChannelIntake(handler: MessageHandler, deps: ChannelIntakeDeps): MessageHandler {
  /**
   * Chats whose scratch directory this intake made: made at a chat's first message, not at every
   * one. One removed while the host runs is made again before a command runs in it
   * (sandbox-policy.ts) and at the chat's first message after a restart.
   */
  const scratchMade = new ChatCache<true>(REMEMBERED_SCRATCH);
  return {
    async handle(request, ctx) {
      const channel = channelOf(request.platform, request.chat_id);
      deps.access.grant(request.user_id, channel);
      // The one place in the workspace the chat's commands may write (the sandbox binds it).
      if (scratchMade.get(channel.adapter, channel.chat) === undefined) {
        ensurePrivateDir(deps.layout.channelScratch(channel));
        scratchMade.set(channel.adapter, channel.chat, true);
      }
      const files = request.attachments?.length
        ? await deps.inbox.save(request.attachments, deps.layout.channelAttachments(channel))
        : NOTHING_SAVED;
      deps.log.received(request, files.saved);
      for (const file of files.skipped) ctx.progress(`⚠️ ${file.name} was not saved: ${file.reason}`);
      // A message without files goes on as it came (copies of it per message showed in the profile).
      const reply = await (request.attachments === undefined
        ? handler.handle(request, ctx)
        : handler.handle(withoutAttachments(request, files), withReceived(ctx, request, files)));
      deps.log.answered(request, toReply(reply).text);
      return reply;
    },
  };
}

/** The request as the handler sees it: its files are in the text (a line each), not attached. */
function withoutAttachments(request: ForwardFrame, files: InboxResult): ForwardFrame {
  const { attachments: _saved, ...rest } = request;
  const text = files === NOTHING_SAVED ? request.text : withAttachmentLines(request.text, files);
  return { ...rest, text };
}

function withReceived(ctx: RequestContext, request: ForwardFrame, files: InboxResult): RequestContext {
  return files.saved.length > 0 ? { ...ctx, received: receivedFiles(request, files) } : ctx;
}

/** The saved files with the type the platform gave each (matched by position: saved keeps the order). */
function receivedFiles(
  request: ForwardFrame,
  files: InboxResult,
): { caption: string; files: ReceivedFile[] } {
  return {
    caption: request.text,
    files: files.saved.map((file) => {
      const mimeType = request.attachments?.[file.index]?.mime_type;
      return { path: file.path, name: file.name, ...(mimeType ? { mimeType } : {}) };
    }),
  };
}
