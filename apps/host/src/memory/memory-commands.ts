import { capText } from "@phonework/runtime";
import type { HostCommand } from "../contracts/host-command.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import type { MemoryAt, MemoryFiles, MemoryScope } from "./memory-files.ts";
import { type Owners, shownScopes } from "./memory-scopes.ts";

// /memory and /forget-memory: what the assistant remembers, and clearing this chat's memory after
// a confirmation (the host's memory is the owner's to edit in the workspace).

/** What one chat message shows of a memory file. */
const SHOW_CHARS = 20_000;
const PREVIEW_CHARS = 1_000;
const FORGET_YES = "/forget-memory yes";

const LABELS: Record<MemoryScope, string> = {
  global: "This host's memory",
  user: "Your own memory on this host",
  channel: "This chat's memory",
};

function readOrProblem(memory: MemoryFiles, scope: MemoryScope, at: MemoryAt): string {
  try {
    return memory.read(scope, at).trim();
  } catch (error) {
    return `⚠️ cannot be read: ${(error as Error).message}`;
  }
}

export function memoryCommands(memory: MemoryFiles, owners: Owners): HostCommand[] {
  return [
    {
      name: "memory",
      usage: "/memory",
      description: "what the assistant remembers: this host's memory, yours and this chat's",
      async run(_args, request) {
        const at = { userId: request.user_id, channel: channelOf(request.platform, request.chat_id) };
        const files = shownScopes(owners, request.user_id).map((scope) => ({
          label: LABELS[scope],
          path: memory.path(scope, at),
          text: readOrProblem(memory, scope, at),
        }));
        if (files.every((file) => !file.text))
          return [
            "🧠 No memory yet. Ask the assistant to remember something, or edit the files:",
            ...files.map((file) => `• ${file.label}: ${file.path}`),
          ].join("\n");
        return files
          .map(
            (file) =>
              `🧠 ${file.label} (${file.path}):\n${file.text ? capText(file.text, SHOW_CHARS) : "(empty)"}`,
          )
          .join("\n\n");
      },
    },
    {
      name: "forget-memory",
      usage: "/forget-memory [yes]",
      description: "clear this chat's memory (asks first; /forget-memory yes clears it)",
      async run(args, request) {
        const at = { userId: request.user_id, channel: channelOf(request.platform, request.chat_id) };
        const path = memory.path("channel", at);
        const answer = args.trim().toLowerCase();
        if (answer !== "" && answer !== "yes") return `Usage: /forget-memory, then ${FORGET_YES} to confirm`;
        const text = readOrProblem(memory, "channel", at);
        if (!text) return "This chat has no memory to forget.";
        if (answer === "yes") {
          try {
            const removed = memory.clear("channel", at);
            return `🗑️ Forgot this chat's memory (${removed.length} characters). This host's memory is kept.`;
          } catch (error) {
            return `❌ Could not clear ${path}: ${(error as Error).message}`;
          }
        }
        const lines = text.split("\n").length;
        return {
          text: [
            `This deletes this chat's memory (${lines} line${lines === 1 ? "" : "s"}, ${path}):`,
            capText(text, PREVIEW_CHARS),
            "",
            `Send ${FORGET_YES} to delete it. This host's memory is kept.`,
          ].join("\n"),
          buttons: [[{ label: "Forget this chat's memory", command: FORGET_YES }]],
        };
      },
    },
  ];
}
