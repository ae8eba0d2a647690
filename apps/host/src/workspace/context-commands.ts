import type { HostCommand } from "../contracts/host-command.ts";
import type { ContextStore } from "./channel-context.ts";

// /new-context (and its short name /reset): the model starts this chat afresh. The old context
// stays in context.jsonl and every message in log.jsonl; memory is kept.

export function contextCommands(contexts: ContextStore): HostCommand[] {
  const run: HostCommand["run"] = async (_args, request) => {
    const dropped = contexts.reset({
      userId: request.user_id,
      chatId: request.chat_id,
      platform: request.platform,
    });
    return dropped === 0
      ? "🆕 This chat already starts afresh: the assistant has no earlier messages in its context."
      : `🆕 New context: the assistant no longer sees the ${dropped} earlier message${dropped === 1 ? "" : "s"} of this chat ` +
          "(they stay in the chat's log and context files). Memory is kept.";
  };
  return [
    {
      name: "new-context",
      usage: "/new-context",
      description: "start this chat afresh (memory and log kept)",
      run,
    },
    { name: "reset", usage: "/reset", description: "same as /new-context", run },
  ];
}
