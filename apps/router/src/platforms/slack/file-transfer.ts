import type { WebClient } from "@slack/web-api";
import { fetchCapped } from "../fetch-capped.ts";
import { type OutgoingFile, PlatformError } from "../platform-adapter.ts";
import { slackCall } from "./slack-error.ts";

// Files both ways. Out: files.getUploadURLExternal, the bytes POSTed to the URL it gives, then
// files.completeUploadExternal shares the file into the chat (files.upload is retired). In: a file's
// url_private_download, fetched with the bot token — sent only to Slack's own hosts (or the
// configured API's, SLACK_API_URL), never to whatever URL a payload names.

export async function uploadFile(
  client: WebClient,
  channel: string,
  file: OutgoingFile,
  threadTs: string | undefined,
): Promise<{ messageId: string }> {
  const target = await slackCall("files.getUploadURLExternal", () =>
    client.files.getUploadURLExternal({ filename: file.name, length: file.data.length }),
  );
  if (!target.upload_url || !target.file_id)
    throw new PlatformError("transient", "files.getUploadURLExternal: no upload_url");
  let response: Response;
  try {
    response = await fetch(target.upload_url, {
      method: "POST",
      headers: { "content-type": file.mimeType ?? "application/octet-stream" },
      body: new Uint8Array(file.data),
      signal: AbortSignal.timeout(120_000),
    });
  } catch {
    throw new PlatformError("transient", "file upload failed: network error");
  }
  await response.body?.cancel();
  if (!response.ok) {
    const kind = response.status >= 500 || response.status === 429 ? "transient" : "permanent";
    throw new PlatformError(kind, `file upload failed: HTTP ${response.status}`, { status: response.status });
  }
  const fileId = target.file_id;
  await slackCall("files.completeUploadExternal", () =>
    client.files.completeUploadExternal({
      files: [{ id: fileId, title: file.name }],
      channel_id: channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    }),
  );
  // The message sharing the file is made by Slack afterwards; the file's id is what names it here.
  return { messageId: fileId };
}

/** Hosts a private file URL may be on: Slack's, and the configured API server's. */
export function trustedFileHost(url: string, apiUrl: string): boolean {
  let host: URL;
  try {
    host = new URL(url);
  } catch {
    return false;
  }
  const api = new URL(apiUrl);
  if (host.origin === api.origin) return true;
  return (
    host.protocol === "https:" && (host.hostname === "slack.com" || host.hostname.endsWith(".slack.com"))
  );
}

export interface DownloadOptions {
  token: string;
  apiUrl: string;
  maxBytes: number;
}

export async function downloadFile(options: DownloadOptions, url: string): Promise<Buffer> {
  if (!trustedFileHost(url, options.apiUrl))
    throw new PlatformError("permanent", "file URL is not on Slack's hosts; not fetched with the token");
  return fetchCapped(
    url,
    {
      headers: { authorization: `Bearer ${options.token}` },
      // A redirect would carry the token along, or lose it: Slack serves files directly.
      redirect: "error",
      signal: AbortSignal.timeout(120_000),
    },
    options.maxBytes,
  );
}
