import type { RawData } from "ws";

/** A WebSocket message's bytes, however `ws` handed them over (one buffer, fragments, an ArrayBuffer). */
export function rawBytes(data: RawData): Buffer {
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
}

/** A WebSocket message's text. */
export const rawText = (data: RawData): string => rawBytes(data).toString("utf8");
