import { basename } from "node:path";
import { type ToolContext, ToolError } from "../contracts/tool.ts";
import { readRange } from "../os/read-fd.ts";
import { type Opened, refuseHardLinked } from "./open-inside.ts";

// file_ops send: the file itself to the user's chat, read through the descriptor openInside
// checked, and no bigger than MAX_FILE_BYTES. mime-types (and its database) is loaded on the first
// send, not with the host.

export async function sendFileToChat(file: Opened, maxFileBytes: number, ctx: ToolContext): Promise<string> {
  const { fd, stat, shown } = file;
  if (!stat.isFile()) throw new ToolError(`${shown} is not a file`);
  refuseHardLinked(file);
  if (stat.size > maxFileBytes) {
    throw new ToolError(
      `${shown} is ${stat.size} bytes; files larger than ${maxFileBytes} bytes (MAX_FILE_BYTES) cannot be sent`,
    );
  }
  const data = readRange(fd, 0, stat.size);
  const name = basename(file.path);
  // CommonJS: its functions are on the default export, under node and in the bundle alike (the
  // bundle's chunk has no named exports for it, so `{ lookup }` was undefined in the package).
  const { default: mime } = await import("mime-types");
  await ctx.sendFile({ name, data, mimeType: mime.lookup(name) || "application/octet-stream" });
  return `sent ${shown} (${data.length} bytes) to the chat`;
}
