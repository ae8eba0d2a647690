// A WebSocket text message as the `ws` package hands it over (one buffer, fragments, or an
// ArrayBuffer), as one string. Both ends of the router link read their frames through it.

export type SocketData = Buffer | ArrayBuffer | Buffer[];

export function socketText(data: SocketData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data as ArrayBuffer).toString("utf8");
}
