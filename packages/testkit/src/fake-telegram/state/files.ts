import { randomBytes } from "node:crypto";

// Files the fake holds, sent by users or uploaded by the bot: each has an opaque file_id, a
// file_unique_id and a file_path under which `/file/bot<token>/<file_path>` serves the bytes.

export interface StoredFile {
  file_id: string;
  file_unique_id: string;
  file_path: string;
  file_size: number;
  file_name?: string;
  mime_type?: string;
  data: Buffer;
}

const MIME_TYPES: Record<string, string> = {
  txt: "text/plain",
  md: "text/markdown",
  json: "application/json",
  pdf: "application/pdf",
  zip: "application/zip",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  mp4: "video/mp4",
  ogg: "audio/ogg",
};

/** The type Telegram reports for a document, guessed from its name as the real server does. */
export function mimeTypeFor(filename: string | undefined): string | undefined {
  const extension = filename?.split(".").pop()?.toLowerCase();
  return extension && filename?.includes(".")
    ? (MIME_TYPES[extension] ?? "application/octet-stream")
    : undefined;
}

export class FileStore {
  private readonly byId = new Map<string, StoredFile>();
  private count = 0;

  put(
    kind: "documents" | "photos" | "voice",
    data: Buffer,
    fileName?: string,
    mimeType?: string,
  ): StoredFile {
    const extension =
      kind === "photos" ? "jpg" : kind === "voice" ? "oga" : (fileName?.split(".").pop() ?? "dat");
    const prefix = { photos: "AgAC", voice: "AwAC", documents: "BQAC" }[kind];
    const file: StoredFile = {
      // Shaped like real ids (base64url, a type prefix) but meaningless: code must not parse them.
      file_id: `${prefix}AgIAAxkBAA${randomBytes(24).toString("base64url")}`,
      file_unique_id: `AgAD${randomBytes(6).toString("base64url")}`,
      file_path: `${kind}/file_${this.count}.${extension}`,
      file_size: data.length,
      ...(fileName !== undefined ? { file_name: fileName } : {}),
      ...(mimeType !== undefined ? { mime_type: mimeType } : {}),
      data,
    };
    this.count += 1;
    this.byId.set(file.file_id, file);
    return file;
  }

  get(fileId: string): StoredFile | undefined {
    return this.byId.get(fileId);
  }

  byPath(path: string): StoredFile | undefined {
    return [...this.byId.values()].find((file) => file.file_path === path);
  }
}
