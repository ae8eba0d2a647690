import type { Api } from "grammy";
import { PlatformError } from "../platform-adapter.ts";
import { toPlatformError } from "./telegram-error.ts";

// A received file's bytes: getFile names its path, then `<apiRoot>/file/bot<token>/<file_path>`
// serves it (grammY core has no download helper). The URL holds the token, so no error or log line
// here repeats it. The Bot API serves files up to 20 MB; getFile refuses bigger ones.

export interface FileDownloadOptions {
  api: Api;
  apiRoot: string;
  token: string;
  maxBytes: number;
}

export async function downloadFile(options: FileDownloadOptions, fileId: string): Promise<Buffer> {
  const file = await options.api.getFile(fileId).catch((error: unknown) => {
    throw toPlatformError(error);
  });
  if (!file.file_path) throw new PlatformError("permanent", "getFile: Telegram gave no file_path");
  const path = file.file_path.split("/").map(encodeURIComponent).join("/");
  let response: Response;
  try {
    response = await fetch(`${options.apiRoot}/file/bot${options.token}/${path}`);
  } catch {
    throw new PlatformError("transient", "file download failed: network error");
  }
  if (!response.ok) {
    await response.body?.cancel();
    const kind = response.status >= 500 || response.status === 429 ? "transient" : "permanent";
    throw new PlatformError(kind, `file download failed: HTTP ${response.status}`, {
      status: response.status,
    });
  }
  const declared = Number(response.headers.get("content-length"));
  if (declared > options.maxBytes) {
    await response.body?.cancel();
    throw new PlatformError("permanent", `file is ${declared} bytes, over ${options.maxBytes}`);
  }
  let data: Buffer;
  try {
    data = Buffer.from(await response.arrayBuffer());
  } catch {
    throw new PlatformError("transient", "file download failed: connection lost");
  }
  if (data.length > options.maxBytes) {
    throw new PlatformError("permanent", `file is ${data.length} bytes, over ${options.maxBytes}`);
  }
  return data;
}
