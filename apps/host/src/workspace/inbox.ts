import { lstatSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Attachment } from "@phonework/protocol";
import { ensurePrivateDir, type Logger, PRIVATE_FILE_MODE } from "@phonework/runtime";
import { formatSize } from "../files/list-tree.ts";
import { numberedName, safeBaseName } from "./attachment-name.ts";

// Files that come with a chat message are saved in the chat's attachments/ directory in the
// workspace before the message is handled, so the assistant or a coding session can open them
// (the message names each file's absolute path). Each file
// gets a new name (never replacing one already there) and is readable by its owner only; what
// cannot be saved (bad base64, over the size limit) is reported as data, not thrown.

/** How many numbered names to try before giving up on a file (`report-1.pdf` … ). */
const MAX_NUMBERED = 1000;

export interface SavedAttachment {
  /** The name it was saved under, inside the attachments directory. */
  name: string;
  /** Absolute path of the saved file. */
  path: string;
  bytes: number;
  /** Its position among the message's attachments. */
  index: number;
}

export interface SkippedAttachment {
  /** The sender's name, made safe to show. */
  name: string;
  reason: string;
}

export interface InboxResult {
  saved: SavedAttachment[];
  skipped: SkippedAttachment[];
}

export interface InboxOptions {
  /** Decoded bytes one message may bring in all its attachments together. */
  maxBytes: number;
  logger: Logger;
}

export interface Inbox {
  /** Saves into `dir` (created owner-only if needed). */
  save(attachments: readonly Attachment[], dir: string): Promise<InboxResult>;
}

// Standard base64 (what the router's Buffer encodes), padded or not; line breaks are allowed
// since some encoders wrap. Buffer.from would silently skip anything else.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of `text`, or undefined when it is not base64. */
export function decodeBase64(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n]/g, "");
  if (!BASE64.test(compact) || compact.length % 4 === 1) return undefined;
  if (compact.includes("=") && compact.length % 4 !== 0) return undefined;
  return Buffer.from(compact, "base64");
}

export function createInbox(options: InboxOptions): Inbox {
  const limit = formatSize(options.maxBytes);

  /** Creates the inbox if needed; the reason it cannot be used otherwise. */
  const prepare = (dir: string): string | undefined => {
    try {
      // lstat: a symlink put there is refused, not followed to wherever it points.
      if (!lstatSync(dir).isDirectory()) return `${dir} is not a folder`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return `cannot use ${dir}: ${errorCode(error)}`;
    }
    try {
      ensurePrivateDir(dir);
      return undefined;
    } catch (error) {
      return `cannot create ${dir}: ${errorCode(error)}`;
    }
  };

  /** Writes under the first free numbered name; `wx` never replaces a file, nor follows a symlink. */
  const write = async (dir: string, name: string, data: Buffer): Promise<Omit<SavedAttachment, "index">> => {
    for (let n = 0; n < MAX_NUMBERED; n++) {
      const candidate = numberedName(name, n);
      const path = join(dir, candidate);
      let file: Awaited<ReturnType<typeof open>>;
      try {
        file = await open(path, "wx", PRIVATE_FILE_MODE);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw error;
      }
      try {
        await file.writeFile(data);
      } catch (error) {
        await rm(path, { force: true }); // no half-written file for the model to read
        throw error;
      } finally {
        await file.close();
      }
      return { name: candidate, path, bytes: data.length };
    }
    throw new Error(`${MAX_NUMBERED} files named like it already exist`);
  };

  return {
    async save(attachments, dir) {
      const result: InboxResult = { saved: [], skipped: [] };
      const unusable = prepare(dir);
      let total = 0;
      for (const [index, attachment] of attachments.entries()) {
        const name = safeBaseName(attachment.name);
        const skip = (reason: string) => result.skipped.push({ name, reason });
        if (unusable) {
          skip(unusable);
          continue;
        }
        const data = decodeBase64(attachment.data_base64);
        if (!data) {
          skip("it is not valid base64");
          continue;
        }
        if (total + data.length > options.maxBytes) {
          skip(`${formatSize(data.length)} is over the ${limit} limit for one message's files`);
          continue;
        }
        try {
          const saved = { ...(await write(dir, name, data)), index };
          total += saved.bytes;
          result.saved.push(saved);
        } catch (error) {
          skip(`it could not be written (${errorCode(error)})`);
        }
      }
      if (result.saved.length > 0)
        options.logger.info(
          { files: result.saved.map(({ name, bytes }) => ({ name, bytes })) },
          "attachments saved",
        );
      if (result.skipped.length > 0)
        options.logger.warn({ skipped: result.skipped }, "attachments not saved");
      return result;
    },
  };
}

const errorCode = (error: unknown) =>
  (error as NodeJS.ErrnoException).code ?? (error as Error)?.message ?? String(error);

/**
 * The message as the model sees it: the user's text, then one line per file, so it can open
 * them. The path is absolute: the message may go to a coding session, whose working directory
 * is a project under WORKING_DIR, far from the workspace.
 */
export function withAttachmentLines(text: string, result: InboxResult): string {
  const lines = [
    ...result.saved.map((file) => `[attached: ${file.path} (${formatSize(file.bytes)})]`),
    ...result.skipped.map((file) => `[attachment "${file.name}" not saved: ${file.reason}]`),
  ];
  return [text, ...lines].filter(Boolean).join("\n");
}
