import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { lookup } from "mime-types";
import { z } from "zod";
import { listTree } from "./files/list-tree.ts";
import { readFileForModel } from "./files/read-file.ts";
import { searchFiles } from "./files/search-files.ts";
import { displayPath, resolveInside } from "./path-guard.ts";
import { defineTool, type Tool, type ToolContext, ToolError } from "./tool.ts";

// file_ops (M2.3): read, list, search and send files under WORKING_DIR.

export const FileOpsArgs = z.object({
  action: z.enum(["read", "list", "search", "send"]),
  path: z.string().default(".").describe("file or directory, relative to the working directory"),
  query: z.string().optional().describe("text to look for (search)"),
  max_bytes: z.number().int().positive().max(100_000).default(8000).describe("read: at most this many bytes"),
  tail_lines: z.number().int().positive().max(5000).optional().describe("read: only the last N lines"),
  depth: z.number().int().min(1).max(3).default(2).describe("list: levels to descend (at most 3)"),
});
export type FileOpsArgs = z.output<typeof FileOpsArgs>;

export interface FileOpsOptions {
  workingDir: string;
  maxFileBytes: number;
}

export async function executeFileOps(
  options: FileOpsOptions,
  args: FileOpsArgs,
  ctx: ToolContext,
): Promise<string> {
  const { workingDir } = options;
  const target = resolveInside(workingDir, args.path);
  const shown = displayPath(workingDir, target);
  switch (args.action) {
    case "read":
      return readFileForModel(target, shown, {
        maxBytes: args.max_bytes,
        ...(args.tail_lines ? { tailLines: args.tail_lines } : {}),
      });
    case "list":
      if (!statSync(target).isDirectory()) throw new ToolError(`${shown} is a file, not a directory`);
      return listTree(target, shown, args.depth);
    case "search":
      if (!args.query) throw new ToolError('search needs a "query"');
      return searchFiles(workingDir, target, args.query);
    case "send": {
      const stat = statSync(target);
      if (!stat.isFile()) throw new ToolError(`${shown} is not a file`);
      if (stat.size > options.maxFileBytes) {
        throw new ToolError(
          `${shown} is ${stat.size} bytes; files larger than ${options.maxFileBytes} bytes (MAX_FILE_BYTES) cannot be sent`,
        );
      }
      const name = basename(target);
      const mimeType = lookup(name) || "application/octet-stream";
      await ctx.sendFile({ name, data: readFileSync(target), mimeType });
      return `sent ${shown} (${stat.size} bytes) to the chat`;
    }
  }
}

export function createFileOpsTool(options: FileOpsOptions): Tool {
  return defineTool({
    name: "file_ops",
    description:
      "Files under the working directory. action=read: show a file (max_bytes from the start, or tail_lines from the end); " +
      "list: directory tree with sizes (depth ≤ 3); search: find lines containing query; send: deliver the file itself to the user's chat.",
    schema: FileOpsArgs,
    describe: (args) => `${args.action}: ${args.path}`,
    execute: (args, ctx) => executeFileOps(options, args, ctx),
  });
}
