import { readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "@phonework/runtime";
import { type Channel, safeSegment, type WorkspaceLayout } from "../workspace/workspace-layout.ts";

// The memory files: the workspace's MEMORY.md (what this host should always know, the owner's), a
// user's own (what a user who is not the owner asked to be remembered in all their chats here), and
// a chat channel's MEMORY.md. Read fresh at every turn, written only here: whole-file writes through
// a private temp file and a rename, so a crash never leaves half a file. No path comes from outside.
//
// A user's own memory is kept outside the workspace, in the host's state directory: every sandboxed
// command sees the workspace (read-only), and one user's memory is no other user's to read.

export type MemoryScope = "global" | "user" | "channel";

/** Whose memory, where: the user asking and the chat they ask in. */
export interface MemoryAt {
  userId: string;
  channel: Channel;
}

export class MemoryFiles {
  /** `usersDir`: where users' own memories go (private to the host; not in the workspace). */
  constructor(
    private readonly layout: WorkspaceLayout,
    private readonly usersDir: string,
  ) {}

  path(scope: MemoryScope, at: MemoryAt): string {
    if (scope === "global") return this.layout.memoryFile;
    if (scope === "user") return join(this.usersDir, `${safeSegment(at.userId)}.md`);
    return this.layout.channelMemory(at.channel);
  }

  /** The file's text; "" when it does not exist. Other read errors (a directory, no permission) throw. */
  read(scope: MemoryScope, at: MemoryAt): string {
    try {
      return readFileSync(this.path(scope, at), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw error;
    }
  }

  /** Adds `text` as new line(s) at the end; returns the file's new text. */
  append(scope: MemoryScope, at: MemoryAt, text: string): string {
    const before = this.read(scope, at);
    const separator = before === "" || before.endsWith("\n") ? "" : "\n";
    const after = `${before}${separator}${text.replace(/\n+$/, "")}\n`;
    this.write(scope, at, after);
    return after;
  }

  replace(scope: MemoryScope, at: MemoryAt, text: string): void {
    this.write(scope, at, text === "" || text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Deletes the file; returns the text it had ("" when there was none). */
  clear(scope: MemoryScope, at: MemoryAt): string {
    const before = this.read(scope, at);
    rmSync(this.path(scope, at), { force: true });
    return before;
  }

  private write(scope: MemoryScope, at: MemoryAt, text: string): void {
    const path = this.path(scope, at);
    const temp = `${path}.${process.pid}.tmp`;
    // writePrivateFile makes the directories (0700) and the file (0600); the rename keeps the mode.
    writePrivateFile(temp, text);
    renameSync(temp, path);
  }
}
