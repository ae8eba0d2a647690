import type * as lark from "@larksuiteoapi/node-sdk";
import { PlatformError } from "../platform-adapter.ts";
import { parseResourceRef } from "./attachments.ts";
import { toFeishuError } from "./feishu-error.ts";

// A received file's bytes through the message resource API (im:message:readonly, or
// im:resource). Feishu serves up to 100 MB; the adapter takes at most its capability's sizes, and
// stops reading as soon as a file is over (a declared length over it is refused unread).

export interface DownloadLimits {
  maxImageBytes: number;
  maxFileBytes: number;
}

export async function downloadResource(
  client: lark.Client,
  ref: string,
  limits: DownloadLimits,
): Promise<Buffer> {
  const resource = parseResourceRef(ref);
  if (!resource) throw new PlatformError("permanent", "not a Feishu message resource");
  const maxBytes = resource.type === "image" ? limits.maxImageBytes : limits.maxFileBytes;
  let response: Awaited<ReturnType<lark.Client["im"]["v1"]["messageResource"]["get"]>>;
  try {
    response = await client.im.v1.messageResource.get({
      params: { type: resource.type },
      path: { message_id: resource.messageId, file_key: resource.key },
    });
  } catch (error) {
    // The answer to a failed download is a stream too: only its status is read.
    const failure = toFeishuError(error);
    throw new PlatformError(
      failure.retriable ? "transient" : "permanent",
      `file download failed: HTTP ${failure.status ?? "error"}`,
      failure.status !== undefined ? { status: failure.status } : {},
    );
  }
  const stream = response.getReadableStream();
  const declared = Number((response.headers as Record<string, unknown> | undefined)?.["content-length"]);
  if (declared > maxBytes) {
    stream.destroy();
    throw new PlatformError("permanent", `file is ${declared} bytes, over ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const part = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += part.length;
      if (total > maxBytes) {
        stream.destroy();
        throw new PlatformError("permanent", `file is over ${maxBytes} bytes`);
      }
      chunks.push(part);
    }
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw new PlatformError("transient", "file download failed: connection lost");
  }
  return Buffer.concat(chunks);
}
