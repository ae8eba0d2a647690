import type { ForwardFrame } from "@phonework/protocol";
import { channelOf, type WorkspaceLayout } from "./workspace-layout.ts";

// The part of the system prompt that tells the model where its workspace is, so it can look
// back through this chat (grep its log) and keep scratch files in the one place it may write.

export function workspacePromptSection(layout: WorkspaceLayout): (request: ForwardFrame) => string {
  return (request) => {
    const channel = channelOf(request.platform, request.chat_id);
    return [
      `Workspace: ${layout.root} (read it with file_ops by absolute path, or with run_shell).`,
      `- This chat's directory: ${layout.channelDir(channel)}`,
      "  - log.jsonl: every message of this chat, one JSON object per line (grep it to look back further than you remember)",
      "  - context.jsonl: your conversation as stored; attachments/: files the user sent",
      `  - scratch/: the one place in the workspace for your own files (${layout.channelScratch(channel)})`,
      "- Change memory only with the memory tool; skills/, tools/ and events/ are the owner's.",
    ].join("\n");
  };
}
