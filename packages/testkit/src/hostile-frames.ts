import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { z } from "zod";

// fast-check generators of raw frames for throwing at a peer: valid frames derived from the zod
// schemas (so a frame type added later is fuzzed too), near-valid ones (a frozen fixture with one
// field broken) and garbage. Each yields the raw text a socket would carry.

/** A frame union such as HostFrame or RouterFrame. */
export interface FrameUnion {
  readonly options: readonly z.ZodType[];
}

/** The subset of JSON Schema that `z.toJSONSchema` produces for our frames. */
interface JsonSchema {
  type?: "object" | "array" | "string" | "number" | "integer" | "boolean";
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
}

const INT32_MAX = 2 ** 31 - 1;
const frameSchemas = (union: FrameUnion) =>
  union.options.map((option) => z.toJSONSchema(option, { io: "input" }) as JsonSchema);

/** The `type` names a union accepts. */
export function frameTypes(union: FrameUnion): string[] {
  return frameSchemas(union).map((schema) => String(schema.properties?.type?.const));
}

/** Values that satisfy `schema`; sizes are kept small so a run stays fast. */
function arbitraryFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 64, 64);
  switch (schema.type) {
    case "object": {
      const fields: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, field]) => [key, arbitraryFor(field)]),
      );
      return fc.record(fields, { requiredKeys: schema.required ?? [] });
    }
    case "array":
      return fc.array(arbitraryFor(schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case "string":
      return schema.pattern
        ? fc
            .stringMatching(new RegExp(schema.pattern))
            .filter((s) => s.length >= minLength && s.length <= maxLength)
        : fc.string({ unit: "binary", minLength, maxLength });
    case "integer":
      return fc.integer({
        min:
          schema.exclusiveMinimum !== undefined
            ? schema.exclusiveMinimum + 1
            : (schema.minimum ?? -INT32_MAX),
        max: Math.min(schema.maximum ?? INT32_MAX, INT32_MAX),
      });
    case "number":
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(schema.exclusiveMinimum !== undefined ? { min: schema.exclusiveMinimum, minExcluded: true } : {}),
        ...(schema.minimum !== undefined ? { min: schema.minimum } : {}),
        ...(schema.maximum !== undefined ? { max: schema.maximum } : {}),
      });
    case "boolean":
      return fc.boolean();
    default:
      return fc.jsonValue();
  }
}

/** Frames the union accepts, any type of it, with any field values the schema allows. */
export function validFrames(union: FrameUnion): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    ...frameSchemas(union).map((schema) => arbitraryFor(schema) as fc.Arbitrary<Record<string, unknown>>),
  );
}

const fixtureDir = new URL("../../protocol/fixtures/v3/", import.meta.url);

/** The frozen sample frames of the current protocol version of the union's types. */
export function fixtureFrames(union: FrameUnion): Array<Record<string, unknown>> {
  const types = new Set(frameTypes(union));
  return readdirSync(fixtureDir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => JSON.parse(readFileSync(new URL(name, fixtureDir), "utf8")) as Record<string, unknown>)
    .filter((frame) => types.has(String(frame.type)));
}

/** JSON text nested `depth` levels deep: arrays, or objects. */
export function deeplyNested(depth: number, kind: "array" | "object" = "array"): string {
  return kind === "array"
    ? `${"[".repeat(depth)}${"]".repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

// A placeholder that JSON.stringify keeps intact, swapped for raw text afterwards (deep nesting
// built as text, so building it does not recurse).
const RAW = "\u0000raw\u0000";
const withRaw = (frame: Record<string, unknown>, raw: string) =>
  JSON.stringify(frame).replace(JSON.stringify(RAW), raw);

const wrongKindValues = fc.constantFrom<unknown>(null, 0, 1.5, -1, true, false, "", "x", [], {}, [1, "a"], {
  nested: true,
});
const negativeNumbers = fc.constantFrom(-1, -0.5, -1e300, Number.MIN_SAFE_INTEGER, -Number.MAX_VALUE);

/** One fixture with one thing wrong: a field of the wrong kind, missing, huge, negative, deep, or another type. */
export function nearValidFrames(union: FrameUnion, allTypes: readonly string[] = []): fc.Arbitrary<string> {
  const fixtures = fixtureFrames(union);
  const typeNames = [...new Set([...frameTypes(union), ...allTypes])];
  return fc.constantFrom(...fixtures).chain((fixture) => {
    const keys = Object.keys(fixture);
    const key = fc.constantFrom(...keys);
    const anyKey = fc.oneof(key, fc.constant("added_field"));
    const set = (k: string, value: unknown) => JSON.stringify({ ...fixture, [k]: value });
    return fc.oneof(
      fc.tuple(key, wrongKindValues).map(([k, value]) => set(k, value)),
      key.map((k) => {
        const { [k]: _dropped, ...rest } = fixture;
        return JSON.stringify(rest);
      }),
      fc.tuple(anyKey, fc.integer({ min: 10_000, max: 100_000 })).map(([k, n]) => set(k, "x".repeat(n))),
      fc.tuple(key, negativeNumbers).map(([k, value]) => set(k, value)),
      fc
        .oneof(
          fc.constantFrom(...typeNames, "", "REGISTER", "forward ", "__proto__", "constructor", "toString"),
          fc.string({ unit: "binary", maxLength: 80 }),
        )
        .map((type) => set("type", type)),
      fc
        .tuple(
          anyKey,
          fc.integer({ min: 50, max: 20_000 }),
          fc.constantFrom("array" as const, "object" as const),
        )
        .map(([k, depth, kind]) => withRaw({ ...fixture, [k]: RAW }, deeplyNested(depth, kind))),
    );
  });
}

/** Anything at all: random text, random JSON, a known type with random fields, and known nasties. */
export function garbageFrames(union: FrameUnion): fc.Arbitrary<string> {
  const types = frameTypes(union);
  return fc.oneof(
    fc.string({ unit: "binary", maxLength: 200 }),
    fc.jsonValue().map((value) => JSON.stringify(value) ?? "null"),
    fc
      .tuple(fc.constantFrom(...types), fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }))
      .map(([type, fields]) => JSON.stringify({ ...fields, type })),
    fc.constantFrom(
      "",
      " ",
      "null",
      "[]",
      "{}",
      "\u0000",
      '{"type":null}',
      '{"type":["pong"]}',
      '{"type":"pong","ts":1e999}',
      '{"type":"pong","ts":"1"}',
      '{"__proto__":{"type":"pong","ts":1}}',
      '{"type":"pong","ts":1,"type":"teleport"}',
      '{"type":"pong"',
      '\ufeff{"type":"pong","ts":1}',
      deeplyNested(100_000),
      deeplyNested(100_000, "object"),
    ),
  );
}
