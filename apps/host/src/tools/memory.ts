import { capText } from "@phonework/runtime";
import { z } from "zod";
import type { MemoryFiles, MemoryScope } from "../workspace/memory-files.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import { defineTool, type Tool, ToolError } from "./tool.ts";

// memory: what the user asks the assistant to remember, kept in the workspace's MEMORY.md (global)
// or this chat's (channel), both shown in the system prompt at every turn. The tool names no path:
// it can write those two files and nothing else.

/** One append or replace. */
export const MAX_MEMORY_TEXT = 20_000;
/** A memory file the tool will grow to; past it, the model must replace it with a shorter one. */
export const MAX_MEMORY_FILE = 100_000;

// Strict: an argument it does not know (a `path`, say) is refused, not silently dropped.
const MemoryArgs = z.strictObject({
  action: z
    .enum(["append", "replace", "read"])
    .describe("append a note, replace the whole file with text, or read the whole file"),
  scope: z
    .enum(["global", "channel"])
    .describe("channel: this chat's memory; global: what this host should know in every chat"),
  text: z
    .string()
    .max(MAX_MEMORY_TEXT)
    .optional()
    .describe("for append: the note; for replace: the file's complete new text (Markdown)"),
});

const where = (scope: MemoryScope) => (scope === "global" ? "this host's memory" : "this chat's memory");

export function createMemoryTool(memory: MemoryFiles): Tool {
  return defineTool({
    name: "memory",
    description:
      "Remember things across conversations: when the user asks you to remember (or forget) something, " +
      "append a short note or replace the file. Both memories are shown to you at every turn.",
    schema: MemoryArgs,
    describe: ({ action, scope }) => `memory: ${action} ${scope}`,
    async execute({ action, scope, text }, ctx) {
      const channel = channelOf(ctx.platform, ctx.chatId);
      if (action === "read") {
        const content = memory.read(scope, channel);
        return content.trim() ? capText(content, MAX_MEMORY_FILE) : `${where(scope)} is empty`;
      }
      if (text === undefined) throw new ToolError(`${action} needs text`);
      if (action === "append") {
        if (!text.trim()) throw new ToolError("append needs a non-empty text");
        const size = memory.read(scope, channel).length + text.length;
        if (size > MAX_MEMORY_FILE)
          throw new ToolError(
            `${where(scope)} would grow past ${MAX_MEMORY_FILE} characters: read it and replace it with a shorter version`,
          );
        const after = memory.append(scope, channel, text);
        return `remembered in ${where(scope)} (${after.length} characters now)`;
      }
      memory.replace(scope, channel, text);
      return text.trim() ? `replaced ${where(scope)} (${text.length} characters)` : `cleared ${where(scope)}`;
    },
  });
}
