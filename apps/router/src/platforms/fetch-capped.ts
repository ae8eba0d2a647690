import { PlatformError } from "./platform-adapter.ts";

// A received file's bytes over HTTP, the way every adapter downloads one: a network error or a
// server error is worth retrying, a refusal is not; the size is checked against the declared
// length before reading and while reading, so an oversized file is never held whole. Errors never
// repeat the URL (Telegram's holds the bot token).

export async function fetchCapped(url: string | URL, init: RequestInit, maxBytes: number): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, init);
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
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new PlatformError("permanent", `file is ${declared} bytes, over ${maxBytes}`);
  }
  return readCapped(response, maxBytes);
}

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > maxBytes) {
        await response.body?.cancel().catch(() => {});
        throw new PlatformError("permanent", `file is over ${maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError("transient", "file download failed: connection lost");
  }
  return Buffer.concat(chunks);
}
