import { fetchCapped } from "../fetch-capped.ts";
import { PlatformError } from "../platform-adapter.ts";

// A received file's bytes, from the CDN url its message gave. Only Discord's CDN hosts (or the
// configured API's own origin, for a Discord stand-in) are fetched: a url is data from outside,
// and the router must not be made to fetch arbitrary addresses. The size is checked before and
// while reading, so an oversized file is never held whole.

const CDN_HOSTS = new Set(["cdn.discordapp.com", "media.discordapp.net"]);

export interface FileDownloadOptions {
  /** The configured API url; its origin is trusted for files too (DISCORD_API_URL). */
  apiUrl: string;
  maxBytes: number;
}

function allowed(url: URL, apiUrl: string): boolean {
  if (url.protocol === "https:" && CDN_HOSTS.has(url.hostname)) return true;
  return url.origin === new URL(apiUrl).origin;
}

export async function downloadFile(options: FileDownloadOptions, ref: string): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw new PlatformError("permanent", "not a file url");
  }
  if (!allowed(url, options.apiUrl))
    throw new PlatformError("permanent", `not a Discord CDN url: ${url.host}`);
  return fetchCapped(url, { redirect: "error", signal: AbortSignal.timeout(60_000) }, options.maxBytes);
}
