import { readFileSync, renameSync, rmSync } from "node:fs";
import { writePrivateFile } from "@phonework/runtime";
import type { Channel, WorkspaceLayout } from "./workspace-layout.ts";

// The two memory files: the workspace's MEMORY.md (what this host should always know) and a chat
// channel's MEMORY.md. Read fresh at every turn, written only here: whole-file writes through a
// private temp file and a rename, so a crash never leaves half a file. No path comes from outside.

export type MemoryScope = "global" | "channel";

export class MemoryFiles {
  constructor(private readonly layout: WorkspaceLayout) {}

  path(scope: MemoryScope, channel: Channel): string {
    return scope === "global" ? this.layout.memoryFile : this.layout.channelMemory(channel);
  }

  /** The file's text; "" when it does not exist. Other read errors (a directory, no permission) throw. */
  read(scope: MemoryScope, channel: Channel): string {
    try {
      return readFileSync(this.path(scope, channel), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
      throw error;
    }
  }

  /** Adds `text` as new line(s) at the end; returns the file's new text. */
  append(scope: MemoryScope, channel: Channel, text: string): string {
    const before = this.read(scope, channel);
    const separator = before === "" || before.endsWith("\n") ? "" : "\n";
    const after = `${before}${separator}${text.replace(/\n+$/, "")}\n`;
    this.write(scope, channel, after);
    return after;
  }

  replace(scope: MemoryScope, channel: Channel, text: string): void {
    this.write(scope, channel, text === "" || text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Deletes the file; returns the text it had ("" when there was none). */
  clear(scope: MemoryScope, channel: Channel): string {
    const before = this.read(scope, channel);
    rmSync(this.path(scope, channel), { force: true });
    return before;
  }

  private write(scope: MemoryScope, channel: Channel, text: string): void {
    const path = this.path(scope, channel);
    const temp = `${path}.${process.pid}.tmp`;
    // writePrivateFile makes the directories (0700) and the file (0600); the rename keeps the mode.
    writePrivateFile(temp, text);
    renameSync(temp, path);
  }
}
