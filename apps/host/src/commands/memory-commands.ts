import { capText } from "@phonework/runtime";
import type { MemoryFiles, MemoryScope } from "../workspace/memory-files.ts";
import { type Channel, channelOf } from "../workspace/workspace-layout.ts";
import type { HostCommand } from "./host-command.ts";

// /memory and /forget-memory: what the assistant remembers, and clearing this chat's memory after
// a confirmation (the host's memory is the owner's to edit in the workspace).

/** What one chat message shows of a memory file. */
const SHOW_CHARS = 20_000;
const PREVIEW_CHARS = 1_000;
const FORGET_YES = "/forget-memory yes";

function readOrProblem(memory: MemoryFiles, scope: MemoryScope, channel: Channel): string {
  try {
    return memory.read(scope, channel).trim();
  } catch (error) {
    return `⚠️ cannot be read: ${(error as Error).message}`;
  }
}

export function memoryCommands(memory: MemoryFiles): HostCommand[] {
  return [
    {
      name: "memory",
      usage: "/memory",
      description: "what the assistant remembers: this host's memory and this chat's",
      async run(_args, request) {
        const channel = channelOf(request.platform, request.chat_id);
        const files = (["global", "channel"] as const).map((scope) => ({
          label: scope === "global" ? "This host's memory" : "This chat's memory",
          path: memory.path(scope, channel),
          text: readOrProblem(memory, scope, channel),
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
        const channel = channelOf(request.platform, request.chat_id);
        const answer = args.trim().toLowerCase();
        if (answer !== "" && answer !== "yes") return `Usage: /forget-memory, then ${FORGET_YES} to confirm`;
        const text = readOrProblem(memory, "channel", channel);
        if (!text) return "This chat has no memory to forget.";
        if (answer === "yes") {
          try {
            const removed = memory.clear("channel", channel);
            return `🗑️ Forgot this chat's memory (${removed.length} characters). This host's memory is kept.`;
          } catch (error) {
            return `❌ Could not clear ${memory.path("channel", channel)}: ${(error as Error).message}`;
          }
        }
        const lines = text.split("\n").length;
        return {
          text: [
            `This deletes this chat's memory (${lines} line${lines === 1 ? "" : "s"}, ${memory.path("channel", channel)}):`,
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
