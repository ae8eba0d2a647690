import { closeSync, existsSync, realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { defineTool, type Tool, type ToolContext, ToolError } from "../contracts/tool.ts";
import { isInside } from "../os/path-guard.ts";
import { type Boundary, createBoundary, type DescriptorCheck } from "./boundary.ts";
import { listTree } from "./list-tree.ts";
import { type Opened, openInside } from "./open-inside.ts";
import { readFileForModel } from "./read-file.ts";
import { searchFiles } from "./search-files.ts";
import { sendFileToChat } from "./send-file.ts";

// file_ops: read, list, search and send files under WORKING_DIR, and in the host's workspace
// (named by absolute path: memory, skills, this chat's log, context and attachments), where
// other chats' directories do not exist for the caller. Each action works on what openInside
// opened and checked, never on a path opened again (files/open-inside.ts).

export const FileOpsArgs = z.object({
  action: z.enum(["read", "list", "search", "send"]),
  path: z
    .string()
    .default(".")
    .describe("file or directory, relative to the working directory (or an absolute path in the workspace)"),
  query: z.string().optional().describe("text to look for (search)"),
  max_bytes: z.number().int().positive().max(100_000).default(8000).describe("read: at most this many bytes"),
  tail_lines: z.number().int().positive().max(5000).optional().describe("read: only the last N lines"),
  depth: z.number().int().min(1).max(3).default(2).describe("list: levels to descend (at most 3)"),
});
export type FileOpsArgs = z.output<typeof FileOpsArgs>;

export interface FileOpsOptions {
  workingDir: string;
  maxFileBytes: number;
  /** How opened descriptors are checked; detected (/proc where there is one) when absent. */
  descriptorCheck?: DescriptorCheck;
  /** The host's workspace, readable by absolute path; other chats' directories hidden. */
  workspace?: {
    root: string;
    /** The chat directories this caller may not see (ChannelAccess.hiddenDirs). */
    hiddenFor(ctx: ToolContext): string[];
  };
}

/** The workspace when `path` names a place in it (and not in WORKING_DIR); else WORKING_DIR. */
function rootFor(options: FileOpsOptions, path: string): { root: string; inWorkspace: boolean } {
  const working = { root: options.workingDir, inWorkspace: false };
  const workspace = options.workspace?.root;
  if (!workspace || !isAbsolute(path) || !existsSync(workspace)) return working;
  const within = (root: string) =>
    isInside(resolve(root), resolve(path)) || isInside(realOf(root), resolve(path));
  return within(workspace) && !within(options.workingDir) ? { root: workspace, inWorkspace: true } : working;
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export async function executeFileOps(
  options: FileOpsOptions,
  args: FileOpsArgs,
  ctx: ToolContext,
): Promise<string> {
  const { root, inWorkspace } = rootFor(options, args.path);
  const boundary = createBoundary(root, {
    ...(options.descriptorCheck ? { check: options.descriptorCheck } : {}),
    // Hidden wherever they are: in tests and small setups the workspace lies inside WORKING_DIR.
    hidden: options.workspace?.hiddenFor(ctx) ?? [],
    showAbsolute: inWorkspace,
  });
  const opened = openInside(boundary, args.path);
  try {
    return await runAction(boundary, opened, options, args, ctx);
  } finally {
    closeSync(opened.fd);
  }
}

function runAction(
  boundary: Boundary,
  opened: Opened,
  options: FileOpsOptions,
  args: FileOpsArgs,
  ctx: ToolContext,
): Promise<string> | string {
  switch (args.action) {
    case "read":
      return readFileForModel(opened, {
        maxBytes: args.max_bytes,
        ...(args.tail_lines ? { tailLines: args.tail_lines } : {}),
      });
    case "list":
      if (!opened.stat.isDirectory()) throw new ToolError(`${opened.shown} is a file, not a directory`);
      return listTree(boundary, opened, args.depth);
    case "search":
      if (!args.query) throw new ToolError('search needs a "query"');
      return searchFiles(boundary, opened, args.query);
    case "send":
      return sendFileToChat(opened, options.maxFileBytes, ctx);
  }
}

export function createFileOpsTool(options: FileOpsOptions): Tool {
  return defineTool({
    name: "file_ops",
    description:
      "Files under the working directory, and (by absolute path) the host's workspace: memory, skills, this chat's log.jsonl, context.jsonl and attachments. action=read: show a file (max_bytes from the start, or tail_lines from the end); " +
      "list: directory tree with sizes (depth ≤ 3); search: find lines containing query; send: deliver the file itself to the user's chat.",
    schema: FileOpsArgs,
    describe: (args) => `${args.action}: ${args.path}`,
    execute: (args, ctx) => executeFileOps(options, args, ctx),
  });
}
