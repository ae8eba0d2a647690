import type { z } from "zod";
import type { ErrorCode } from "./errors.ts";
import type { Frame } from "./frames.ts";
import { type HotParser, hotParsers } from "./hot-frames.ts";

// Decoding never throws: bad input becomes a typed error that the caller can send back. The frames
// every forwarded message crosses are parsed by hand-written twins of their schemas (hot-frames.ts);
// zod parses every other frame, and writes the error message for a hot frame the twin refused.

export type DecodeResult<T> = { ok: true; frame: T } | { ok: false; code: ErrorCode; message: string };

type FrameUnion = z.ZodDiscriminatedUnion<readonly z.ZodObject<{ type: z.ZodLiteral<string> }>[]>;

/** Per frame type of a union: its hand-written parser, or null (zod parses it). */
function knownTypes(schema: FrameUnion): Map<string, HotParser | null> {
  return new Map(
    schema.options.map((option) => [String(option.shape.type.value), hotParsers.get(option) ?? null]),
  );
}

const cache = new WeakMap<FrameUnion, Map<string, HotParser | null>>();

export function decodeFrame<S extends FrameUnion>(raw: string, schema: S): DecodeResult<z.infer<S>> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, code: "BAD_FRAME", message: "frame is not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, code: "BAD_FRAME", message: "frame must be a JSON object" };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string") {
    return { ok: false, code: "BAD_FRAME", message: "frame has no string 'type' field" };
  }
  let types = cache.get(schema);
  if (!types) {
    types = knownTypes(schema);
    cache.set(schema, types);
  }
  const hot = types.get(type);
  if (hot === undefined) {
    return { ok: false, code: "BAD_FRAME", message: `unknown frame type '${truncate(type, 64)}'` };
  }
  if (hot !== null) {
    const frame = hot(value as Record<string, unknown>);
    if (frame !== undefined) return { ok: true, frame: frame as z.infer<S> };
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      code: "BAD_FRAME",
      message: `invalid '${type}' frame: ${describeIssues(parsed.error)}`,
    };
  }
  return { ok: true, frame: parsed.data };
}

export function encodeFrame(frame: Frame): string {
  return JSON.stringify(frame);
}

/** At most `max` UTF-16 units, never ending in half a surrogate pair (a broken character). */
function truncate(text: string, max: number): string {
  const cut = text.slice(0, max);
  return text.length > max && /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}
