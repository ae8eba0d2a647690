import type { z } from "zod";
import { ErrorCode } from "./errors.ts";
import {
  ErrorFrame,
  ForwardFrame,
  ForwardResponseFrame,
  PingFrame,
  PongFrame,
  ProgressFrame,
  ProgressKind,
  PushAckFrame,
} from "./frames.ts";

// Hand-written parsers for the frames every forwarded message crosses (forward, forward_response,
// push_ack, progress, error, ping/pong): the same checks as their zod schemas, written out, so the
// hot path pays a few typeof tests instead of zod's general machinery. Each returns what the
// schema's safeParse returns as data (unknown keys dropped, keys in the schema's order), or
// undefined where the schema would refuse; the codec then asks zod for the error message. They must
// accept and refuse exactly what the schemas do: test/hot-frames.unit.test.ts compares them on
// thousands of generated frames. A change to one of these schemas must change its parser here.

type Obj = Record<string, unknown>;
/** Parses a value JSON.parse produced (an object whose `type` is the parser's); undefined: refused. */
export type HotParser = (value: Obj) => unknown;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** Zod measures a string's length in code points (a surrogate pair is one, a lone surrogate one). */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}
/** A string of min..max code points; counted only where the UTF-16 length leaves it in doubt. */
function isStr(v: unknown, min: number, max: number): v is string {
  if (typeof v !== "string") return false;
  const units = v.length;
  if (units < min) return false;
  if (units > max && codePoints(v) > max) return false;
  return units >= 2 * min || codePoints(v) >= min;
}
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isId = (v: unknown): v is string => isStr(v, 1, 128);
const ANY = Number.POSITIVE_INFINITY;

const errorCodes: ReadonlySet<unknown> = new Set(ErrorCode.options);
const progressKinds: ReadonlySet<unknown> = new Set(ProgressKind.options);

/** Set `key` from `v` if present; false if present and not accepted by `ok`. */
function optional(out: Obj, key: string, v: unknown, ok: (v: unknown) => boolean): boolean {
  if (v === undefined) return true;
  if (!ok(v)) return false;
  out[key] = v;
  return true;
}

const anyStr = (v: unknown) => typeof v === "string";
const bool = (v: unknown) => typeof v === "boolean";

/** `{ code: ErrorCode, message: string }` */
function wireError(v: unknown): Obj | undefined {
  if (!isObj(v) || !errorCodes.has(v.code) || typeof v.message !== "string") return undefined;
  return { code: v.code, message: v.message };
}

/** Buttons: at most 20 rows of 1–8 `{ label, command }`. */
function buttons(v: unknown): unknown[] | undefined {
  if (!Array.isArray(v) || v.length > 20) return undefined;
  const rows: unknown[] = [];
  for (const row of v) {
    if (!Array.isArray(row) || row.length < 1 || row.length > 8) return undefined;
    const out: Obj[] = [];
    for (const button of row) {
      if (!isObj(button) || !isStr(button.label, 1, 64) || !isStr(button.command, 1, 256)) return undefined;
      out.push({ label: button.label, command: button.command });
    }
    rows.push(out);
  }
  return rows;
}

function attachments(v: unknown): Obj[] | undefined {
  if (!Array.isArray(v) || v.length > 10) return undefined;
  const out: Obj[] = [];
  for (const a of v) {
    if (!isObj(a) || !isStr(a.name, 1, 255)) return undefined;
    const item: Obj = { name: a.name };
    if (!optional(item, "mime_type", a.mime_type, (m) => isStr(m, 0, 255))) return undefined;
    if (typeof a.data_base64 !== "string") return undefined;
    item.data_base64 = a.data_base64;
    out.push(item);
  }
  return out;
}

function peerNodes(v: unknown): Obj[] | undefined {
  if (!Array.isArray(v) || v.length > 100) return undefined;
  const out: Obj[] = [];
  for (const n of v) {
    if (!isObj(n) || !isStr(n.node_id, 1, 64) || !isStr(n.display_name, 1, 128)) return undefined;
    if (typeof n.online !== "boolean" || typeof n.workers !== "boolean") return undefined;
    out.push({ node_id: n.node_id, display_name: n.display_name, online: n.online, workers: n.workers });
  }
  return out;
}

/** Sets an optional field parsed by `parse` (which returns undefined to refuse). */
function optionalParsed(out: Obj, key: string, v: unknown, parse: (v: unknown) => unknown): boolean {
  if (v === undefined) return true;
  const parsed = parse(v);
  if (parsed === undefined) return false;
  out[key] = parsed;
  return true;
}

const tsFrame =
  (type: "ping" | "pong"): HotParser =>
  (v) =>
    isNum(v.ts) ? { type, ts: v.ts } : undefined;

const forwardResponse: HotParser = (v) => {
  if (!isId(v.id) || typeof v.text !== "string" || !isId(v.delivery_id)) return undefined;
  const out: Obj = { type: "forward_response", id: v.id, text: v.text, delivery_id: v.delivery_id };
  if (!optional(out, "user_id", v.user_id, (u) => isStr(u, 1, ANY))) return undefined;
  if (!optional(out, "platform", v.platform, anyStr)) return undefined;
  if (!optional(out, "chat_id", v.chat_id, anyStr)) return undefined;
  if (!optionalParsed(out, "error", v.error, wireError)) return undefined;
  if (!optionalParsed(out, "buttons", v.buttons, buttons)) return undefined;
  return out;
};

const progress: HotParser = (v) => {
  if (!isId(v.id) || typeof v.text !== "string") return undefined;
  const out: Obj = { type: "progress", id: v.id, text: v.text };
  return optional(out, "kind", v.kind, (k) => progressKinds.has(k)) ? out : undefined;
};

const pushAck: HotParser = (v) => {
  if (!isId(v.delivery_id) || typeof v.ok !== "boolean") return undefined;
  const out: Obj = { type: "push_ack", delivery_id: v.delivery_id, ok: v.ok };
  if (!optional(out, "message_id", v.message_id, anyStr)) return undefined;
  return optional(out, "error", v.error, anyStr) ? out : undefined;
};

const forward: HotParser = (v) => {
  if (!isId(v.id) || !isStr(v.user_id, 1, ANY) || !isStr(v.chat_id, 1, ANY)) return undefined;
  if (!isStr(v.platform, 1, ANY) || typeof v.text !== "string") return undefined;
  const out: Obj = {
    type: "forward",
    id: v.id,
    user_id: v.user_id,
    chat_id: v.chat_id,
    platform: v.platform,
    text: v.text,
  };
  if (!optional(out, "message_id", v.message_id, anyStr)) return undefined;
  if (!optionalParsed(out, "attachments", v.attachments, attachments)) return undefined;
  if (!optionalParsed(out, "nodes", v.nodes, peerNodes)) return undefined;
  return optional(out, "details", v.details, bool) ? out : undefined;
};

const error: HotParser = (v) => {
  const out: Obj = { type: "error" };
  if (!optional(out, "id", v.id, isId)) return undefined;
  if (!optional(out, "delivery_id", v.delivery_id, isId)) return undefined;
  if (!optional(out, "retry_after_s", v.retry_after_s, (s) => isNum(s) && s >= 0)) return undefined;
  if (!errorCodes.has(v.code) || typeof v.message !== "string") return undefined;
  out.code = v.code;
  out.message = v.message;
  return out;
};

/** The hot frames' schemas, each with its parser: the codec uses one where a union holds that schema. */
export const hotParsers: ReadonlyMap<z.ZodType, HotParser> = new Map<z.ZodType, HotParser>([
  [PingFrame, tsFrame("ping")],
  [PongFrame, tsFrame("pong")],
  [ForwardResponseFrame, forwardResponse],
  [ProgressFrame, progress],
  [PushAckFrame, pushAck],
  [ForwardFrame, forward],
  [ErrorFrame, error],
]);
