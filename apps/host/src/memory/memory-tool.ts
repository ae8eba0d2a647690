import { capText } from "@phonework/runtime";
import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../contracts/tool.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import type { MemoryFiles, MemoryScope } from "./memory-files.ts";
import { everywhereScope, type Owners } from "./memory-scopes.ts";

// memory: what the user asks the assistant to remember, kept in this chat's MEMORY.md (channel) or
// for every chat (global): the workspace's MEMORY.md when the node's owner asks, else that user's
// own memory on this host — a user the node is shared with never changes what its owner's
// assistant is told. All of them are shown in the system prompt at every turn. The tool names no
// path: it can write those files and nothing else.

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
    .describe(
      "channel: this chat's memory; global: what you should know in every chat of this user (the node's owner: this host's memory)",
    ),
  text: z
    .string()
    .max(MAX_MEMORY_TEXT)
    .optional()
    .describe("for append: the note; for replace: the file's complete new text (Markdown)"),
});

const WHERE: Record<MemoryScope, string> = {
  global: "this host's memory",
  user: "your own memory on this host (only the node's owner changes this host's memory)",
  channel: "this chat's memory",
};

export function createMemoryTool(memory: MemoryFiles, owners: Owners): Tool {
  return defineTool({
    name: "memory",
    description:
      "Remember things across conversations: when the user asks you to remember (or forget) something, " +
      "append a short note or replace the file. Every memory is shown to you at every turn.",
    schema: MemoryArgs,
    describe: ({ action, scope }) => `memory: ${action} ${scope}`,
    async execute({ action, scope: asked, text }, ctx) {
      const at = { userId: ctx.userId, channel: channelOf(ctx.platform, ctx.chatId) };
      const scope = asked === "global" ? everywhereScope(owners, ctx.userId) : "channel";
      const where = WHERE[scope];
      if (action === "read") {
        const content = memory.read(scope, at);
        return content.trim() ? capText(content, MAX_MEMORY_FILE) : `${where} is empty`;
      }
      if (text === undefined) throw new ToolError(`${action} needs text`);
      if (action === "append") {
        if (!text.trim()) throw new ToolError("append needs a non-empty text");
        const size = memory.read(scope, at).length + text.length;
        if (size > MAX_MEMORY_FILE)
          throw new ToolError(
            `${where} would grow past ${MAX_MEMORY_FILE} characters: read it and replace it with a shorter version`,
          );
        const after = memory.append(scope, at, text);
        return `remembered in ${where} (${after.length} characters now)`;
      }
      memory.replace(scope, at, text);
      return text.trim() ? `replaced ${where} (${text.length} characters)` : `cleared ${where}`;
    },
  });
}
