import { ToolError } from "../contracts/tool.ts";
import { readRange } from "../os/read-fd.ts";
import { type Opened, refuseHardLinked } from "./open-inside.ts";

// file_ops read: the start of a file (up to max_bytes), or its last N lines, read through the
// descriptor openInside checked.

const TAIL_WINDOW_BYTES = 1024 * 1024;

export function readFileForModel(file: Opened, options: { maxBytes: number; tailLines?: number }): string {
  const { fd, stat, shown } = file;
  if (stat.isDirectory()) throw new ToolError(`${shown} is a directory; use action "list"`);
  if (!stat.isFile()) throw new ToolError(`${shown} is not a regular file`);
  refuseHardLinked(file);
  const probe = readRange(fd, 0, Math.min(stat.size, 8192));
  if (probe.includes(0)) {
    throw new ToolError(`${shown} is a binary file (${stat.size} bytes); use action "send" to get it`);
  }
  if (options.tailLines !== undefined) {
    const start = Math.max(0, stat.size - TAIL_WINDOW_BYTES);
    const lines = readRange(fd, start, stat.size - start)
      .toString("utf8")
      .split("\n");
    if (lines.at(-1) === "") lines.pop();
    const tail = lines.slice(-options.tailLines);
    let text = tail.join("\n");
    if (text.length > options.maxBytes) text = `…${text.slice(text.length - options.maxBytes)}`;
    return `${shown} — last ${tail.length} line(s):\n${text}`;
  }
  const text = readRange(fd, 0, Math.min(stat.size, options.maxBytes)).toString("utf8");
  const note =
    stat.size > options.maxBytes
      ? `\n…[truncated: file is ${stat.size} bytes, showed the first ${options.maxBytes}]`
      : "";
  return `${shown} (${stat.size} bytes):\n${text}${note}`;
}
