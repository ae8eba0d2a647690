import type { IncomingMessage } from "node:http";
import { type MultipartPart, multipartBoundary, parseMultipart } from "../../shared/multipart.ts";

// What an HTTP request to the Bot API asks for: `/bot<token>/<method>` with its parameters merged
// from the query string and the body (JSON, urlencoded or multipart), or `/file/bot<token>/<path>`.
// Multipart file parts are matched to the parameters naming them: grammY sends `document` as
// "attach://<id>" plus a part named <id>; other clients send the part under `document` itself.

export class UploadedFile {
  constructor(
    readonly data: Buffer,
    readonly filename: string | undefined,
    readonly contentType: string | undefined,
  ) {}

  /** How a call records the upload: without the bytes. */
  toJSON(): object {
    return { filename: this.filename, contentType: this.contentType, size: this.data.length };
  }
}

export type ApiRoute =
  | { kind: "method"; token: string; method: string; params: Record<string, unknown> }
  | { kind: "file"; token: string; path: string }
  | { kind: "unknown" };

export function routeOf(req: IncomingMessage, body: Buffer): ApiRoute {
  const url = new URL(req.url ?? "/", "http://fake");
  const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
  if (file?.[1] && file[2]) return { kind: "file", token: file[1], path: decodeURIComponent(file[2]) };
  const method = /^\/bot([^/]+)\/([A-Za-z]+)\/?$/.exec(url.pathname);
  if (!method?.[1] || !method[2]) return { kind: "unknown" };
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  Object.assign(params, bodyParams(req.headers["content-type"], body));
  return { kind: "method", token: method[1], method: method[2], params };
}

function bodyParams(contentType: string | undefined, body: Buffer): Record<string, unknown> {
  if (!body.length) return {};
  const boundary = multipartBoundary(contentType);
  if (boundary) return multipartParams(parseMultipart(body, boundary));
  const text = body.toString("utf8");
  if (contentType?.startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function multipartParams(parts: MultipartPart[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const files = new Map<string, UploadedFile>();
  for (const part of parts) {
    if (part.filename !== undefined) {
      files.set(part.name, new UploadedFile(Buffer.from(part.data), part.filename, part.contentType));
    } else params[part.name] = part.data.toString("utf8");
  }
  for (const [name, value] of Object.entries(params)) {
    const attached = typeof value === "string" && /^attach:\/\/(.+)$/.exec(value)?.[1];
    if (attached && files.has(attached)) {
      params[name] = files.get(attached);
      files.delete(attached);
    }
  }
  for (const [name, file] of files) params[name] ??= file;
  return params;
}
