import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
// testkit depends on protocol, so protocol's own tests take the generators by path (no cycle).
import { fcParams } from "../../testkit/src/fc-params.ts";
import { fixtureFrames } from "../../testkit/src/hostile-frames.ts";
import { hotParsers } from "../src/hot-frames.ts";
import { decodeFrame, ErrorCode, Frame, HostFrame, ProgressKind, RouterFrame } from "../src/index.ts";

// The hand-written parsers of the hot frames against their zod schemas, differentially: every frame
// below (valid ones, and each with one thing wrong at one place) is given to both, and they must
// agree on accepting it and, when they accept, on the parsed value, down to the order of its keys.

type Json = unknown;
type Path = Array<string | number>;

const hotSchemas = [...hotParsers.keys()] as Array<z.ZodObject<{ type: z.ZodLiteral<string> }>>;
const hotTypes = new Set(hotSchemas.map((schema) => String(schema.shape.type.value)));

/** Each hot type with every optional field present, so every field gets broken somewhere. */
const richFrames: Array<Record<string, Json>> = [
  { type: "ping", ts: 1_700_000_000_000 },
  { type: "pong", ts: 0 },
  {
    type: "forward_response",
    id: "req-1",
    text: "hello",
    delivery_id: "reply-req-1",
    user_id: "telegram:1",
    platform: "telegram",
    chat_id: "telegram:1",
    error: { code: "TIMEOUT", message: "took too long" },
    buttons: [
      [
        { label: "Yes", command: "/yes" },
        { label: "No", command: "/no" },
      ],
      [{ label: "Later", command: "/later" }],
    ],
  },
  { type: "progress", id: "req-1", text: "running tests", kind: "tool" },
  { type: "push_ack", delivery_id: "d-1", ok: false, message_id: "m-1", error: "chat gone" },
  {
    type: "forward",
    id: "req-2",
    user_id: "u",
    chat_id: "c",
    platform: "memory",
    text: "hi",
    message_id: "42",
    attachments: [{ name: "a.txt", mime_type: "text/plain", data_base64: "aGk=" }],
    nodes: [{ node_id: "n1", display_name: "Node one", online: true, workers: false }],
    details: true,
  },
  {
    type: "error",
    id: "req-3",
    delivery_id: "d-3",
    retry_after_s: 2.5,
    code: "RATE_LIMITED",
    message: "slow",
  },
];

const seeds = [...richFrames, ...fixtureFrames(Frame).filter((frame) => hotTypes.has(String(frame.type)))];

/** Replaced, after JSON.stringify, by number text JSON.parse turns into ±Infinity. */
const INF = "\u0000inf\u0000";
const NEG_INF = "\u0000-inf\u0000";
const toRaw = (frame: Json) =>
  JSON.stringify(frame)
    .replaceAll(JSON.stringify(INF), "1e999")
    .replaceAll(JSON.stringify(NEG_INF), "-1e999");

const lengths = [0, 1, 7, 8, 9, 10, 11, 19, 20, 21, 63, 64, 65, 99, 100, 101, 127, 128, 129, 255, 256, 257];
const replacements: Json[] = [
  null,
  true,
  false,
  0,
  -0,
  -1,
  -0.5,
  1.5,
  1e308,
  -1e308,
  INF,
  NEG_INF,
  "",
  "x",
  "1",
  "0",
  "true",
  "null",
  "٣",
  "😀",
  "\ud800",
  "\u0000",
  "a\u202eb",
  ...lengths.map((n) => "a".repeat(n)),
  "😀".repeat(32),
  "😀".repeat(64),
  `${"a".repeat(127)}😀`,
  `${"😀".repeat(127)}a`,
  [],
  [1],
  [[]],
  [{}],
  {},
  { nested: { deep: [1, { x: null }] } },
  ...ErrorCode.options,
  ...ProgressKind.options,
  "timeout",
  "STATUS",
  " tool",
];
const extraKeys = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype", "extra"];

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Every path to a value inside `value` (not the root). */
function pathsOf(value: Json, at: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...at, i], ...pathsOf(item, [...at, i])]);
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([key, item]) => [[...at, key], ...pathsOf(item, [...at, key])]);
  return [];
}

function containerOf(
  root: Json,
  path: Path,
): { parent: Record<string | number, Json>; key: string | number } {
  let parent = root as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  return { parent, key: path[path.length - 1] as string | number };
}

/** Own data property, also for "__proto__" (an assignment would set the prototype instead). */
function define(target: object, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `frame` with one thing wrong at `path`: each replacement, removed, resized, or with an extra key. */
function* mutationsAt(frame: Json, path: Path): Generator<Json> {
  for (const value of replacements) {
    const copy = clone(frame);
    const { parent, key } = containerOf(copy, path);
    define(parent, key, value);
    yield copy;
  }
  const original = containerOf(frame, path).parent[containerOf(frame, path).key];
  const asText = clone(frame);
  const text = typeof original === "object" ? JSON.stringify(original) : String(original);
  define(containerOf(asText, path).parent, containerOf(asText, path).key, text);
  yield asText;
  const { parent: originalParent } = containerOf(frame, path);
  if (!Array.isArray(originalParent)) {
    const removed = clone(frame);
    const { parent, key } = containerOf(removed, path);
    delete parent[key];
    yield removed;
  }
  if (Array.isArray(original) && original.length > 0) {
    for (const n of lengths) {
      const resized = clone(frame);
      const { parent, key } = containerOf(resized, path);
      define(
        parent,
        key,
        Array.from({ length: n }, (_, i) => original[i % original.length]),
      );
      yield resized;
    }
  }
  if (typeof original === "object" && original !== null && !Array.isArray(original)) {
    for (const extra of extraKeys) {
      for (const value of [{ type: "ping", ts: 1 }, "x", null]) {
        const widened = clone(frame);
        const { parent, key } = containerOf(widened, path);
        define(parent[key] as object, extra, value);
        yield widened;
      }
    }
  }
}

/** One of `mutationsAt` (the last one when `pick` is past the end), built alone. */
function nthMutation(frame: Json, path: Path, pick: number): Json {
  let last: Json = frame;
  let i = 0;
  for (const mutated of mutationsAt(frame, path)) {
    last = mutated;
    if (i++ === pick) break;
  }
  return last;
}

/** The root too gets extra keys, including ones that look like the prototype's. */
function* rootExtras(frame: Record<string, Json>): Generator<Json> {
  for (const extra of extraKeys) {
    for (const value of [{ type: "ping", ts: 1, polluted: true }, "x", 1, null, []]) {
      const widened = clone(frame);
      define(widened, extra, value);
      yield widened;
    }
  }
}

const schemaOf = new Map(hotSchemas.map((schema) => [String(schema.shape.type.value), schema]));

/** Compares the two on one raw frame; returns whether zod accepted it. */
function compare(raw: string): boolean {
  const value = JSON.parse(raw) as Record<string, Json>;
  const schema = schemaOf.get(String(value.type));
  if (!schema) throw new Error(`not a hot type: ${String(value.type)}`);
  const parser = hotParsers.get(schema);
  if (!parser) throw new Error("no parser");
  const expected = schema.safeParse(JSON.parse(raw));
  const actual = parser(JSON.parse(raw) as Record<string, Json>);
  if (expected.success !== (actual !== undefined))
    throw new Error(
      `zod ${expected.success ? "accepts" : "refuses"}, the hot parser does not: ${raw.slice(0, 500)}`,
    );
  const want = JSON.stringify(expected.data);
  // Same value, same key order, plain objects (isDeepStrictEqual also compares prototypes).
  if (expected.success && (JSON.stringify(actual) !== want || !isDeepStrictEqual(actual, expected.data)))
    throw new Error(`different values: ${JSON.stringify(actual)} and ${want}`);
  // End to end through the codec, for the union that holds the type in its direction.
  const union = HostFrame.options.some((option) => option === schema) ? HostFrame : RouterFrame;
  const decoded = decodeFrame(raw, union);
  if (decoded.ok !== expected.success || (decoded.ok && JSON.stringify(decoded.frame) !== want))
    throw new Error(`decodeFrame disagrees with zod on ${raw.slice(0, 500)}`);
  if (!decoded.ok && !decoded.message.startsWith(`invalid '${String(value.type)}' frame: `))
    throw new Error(`unexpected refusal: ${decoded.message}`);
  return expected.success;
}

describe("hot frames: hand-written parsers against their zod schemas", () => {
  it("agree on every frame with one thing wrong at any one place, and on the frames themselves", () => {
    let cases = 0;
    let accepted = 0;
    for (const seed of seeds) {
      const frames: Json[] = [seed, ...rootExtras(seed)];
      for (const path of pathsOf(seed)) {
        if (path.length === 1 && path[0] === "type") continue; // another type: not this parser's
        frames.push(...mutationsAt(seed, path));
      }
      for (const frame of frames) {
        cases++;
        if (compare(toRaw(frame))) accepted++;
      }
    }
    // Both sides of the boundary are well covered (9,406 cases, 4,715 accepted, when written).
    expect(cases).toBeGreaterThan(5000);
    expect(accepted).toBeGreaterThan(1000);
    expect(cases - accepted).toBeGreaterThan(3000);
  });

  it("agree on frames with random values at one or two random places", () => {
    const anyValue = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.string({ maxLength: 300 }),
      fc.string({ unit: "grapheme", maxLength: 140 }),
      fc.constantFrom(...replacements),
    );
    const change = (frame: Json) => {
      const paths = pathsOf(frame).filter((path) => !(path.length === 1 && path[0] === "type"));
      if (paths.length === 0) return fc.constant(frame);
      return fc.tuple(fc.constantFrom(...paths), anyValue, fc.nat(90)).map(([path, value, pick]) => {
        if (pick % 3 === 0) return nthMutation(frame, path, pick);
        const copy = clone(frame);
        const { parent, key } = containerOf(copy, path);
        define(parent, key, value);
        return copy;
      });
    };
    const frames = fc
      .constantFrom(...seeds)
      .chain((seed) => change(seed).chain((once) => fc.oneof(fc.constant(once), change(once))));
    fc.assert(
      fc.property(frames, (frame) => {
        compare(toRaw(frame));
      }),
      fcParams({ numRuns: 1500 }),
    );
  });

  it("leave the prototype alone", () => {
    const raw =
      '{"type":"pong","ts":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
    const decoded = decodeFrame(raw, HostFrame);
    expect(decoded).toEqual({ ok: true, frame: { type: "pong", ts: 1 } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
