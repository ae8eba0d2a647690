// A small multipart/form-data parser for the fakes' upload routes: enough for what HTTP clients (axios
// with form-data, undici's FormData, grammY's own writer) send, byte-exact so recorded file sizes are real.

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType?.toLowerCase().startsWith("multipart/form-data")) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2]?.trim();
}

export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const parts: MultipartPart[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`);
  let position = body.indexOf(delimiter);
  while (position !== -1) {
    const afterDelimiter = position + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString() === "--") break; // closing delimiter
    const start = afterDelimiter + 2; // the CRLF ending the delimiter line
    const end = body.indexOf(nextDelimiter, start);
    if (end === -1) break;
    const part = parsePart(body.subarray(start, end));
    if (part) parts.push(part);
    position = end + 2;
  }
  return parts;
}

function parsePart(raw: Buffer): MultipartPart | undefined {
  const headerEnd = raw.indexOf("\r\n\r\n");
  if (headerEnd === -1) return undefined;
  const headers = new Map<string, string>();
  for (const line of raw.subarray(0, headerEnd).toString("utf8").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) return undefined;
  return {
    name,
    filename: filenameOf(disposition),
    contentType: headers.get("content-type"),
    data: raw.subarray(headerEnd + 4),
  };
}

// grammY writes `filename=report.pdf` unquoted (to the end of the header line); browsers quote it.
function filenameOf(disposition: string): string | undefined {
  const match = /\bfilename=(?:"([^"]*)"|([^;]*))/i.exec(disposition);
  return match?.[1] ?? match?.[2]?.trim();
}

/** How a multipart body is recorded in `calls`: text fields as strings, files as name/size/type. */
export function describeMultipart(parts: MultipartPart[]): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  for (const part of parts) {
    described[part.name] =
      part.filename !== undefined || part.contentType !== undefined
        ? { filename: part.filename, contentType: part.contentType, size: part.data.length }
        : part.data.toString("utf8");
  }
  return described;
}
