import type { Api } from "grammy";
import { fetchCapped } from "../fetch-capped.ts";
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
  return fetchCapped(`${options.apiRoot}/file/bot${options.token}/${path}`, {}, options.maxBytes);
}
