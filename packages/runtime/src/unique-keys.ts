import pino, { type Logger } from "pino";

// pino writes a child's bindings after its parent's, and a call's fields after both: a
// `child({ component: "chat" })` of a `child({ component: "router" })` logged "component" twice.
// Readers disagree on such a line (JSON.parse keeps the last value, others the first, some refuse
// it), so every key is written once here, with the value JSON.parse would have kept: the innermost.

/** pino keeps a logger's bindings as a ready-made JSON fragment: `,"pid":1,"name":"x",…`. */
const { chindingsSym } = pino.symbols;

/** Keys pino writes itself, before the bindings (`msg` comes last, and a call may name it too). */
const WRITTEN_BY_PINO = ["level", "time", "msg"];

type Bound = Record<symbol, string>;

export interface UniqueKeys {
  /** For pino's `onChild`: a child's binding replaces its parent's of the same name. */
  onChild(child: Logger): void;
  /** For pino's `mixin`: notes a call that names a key its logger already writes. */
  mixin(fields: object, level: number, logger: Logger): object;
  /** For the streamWrite hook: the line with each key once (rewritten only after such a call). */
  line(line: string): string;
}

/** One per root logger: its children share it (they inherit onChild and mixin). */
export function uniqueKeys(): UniqueKeys {
  const keysOf = new WeakMap<Logger, ReadonlySet<string>>();
  // Set by mixin and read by line() within the same synchronous write of one line.
  let clash = false;

  const boundKeys = (logger: Logger): ReadonlySet<string> => {
    let keys = keysOf.get(logger);
    if (!keys) {
      keys = new Set([...WRITTEN_BY_PINO, ...Object.keys(parseFragment(fragmentOf(logger)))]);
      keysOf.set(logger, keys);
    }
    return keys;
  };

  return {
    onChild(child) {
      const parent = Object.getPrototypeOf(child) as Logger;
      const all = fragmentOf(child);
      const own = parseFragment(all.slice(fragmentOf(parent).length));
      const parentKeys = boundKeys(parent);
      if (!Object.keys(own).some((key) => parentKeys.has(key))) return;
      // JSON.parse keeps a key where it first appeared, with the value it last had.
      (child as unknown as Bound)[chindingsSym] = toFragment(parseFragment(all));
    },
    mixin(fields, _level, logger) {
      const bound = boundKeys(logger);
      for (const key of Object.keys(fields)) {
        if (bound.has(key)) {
          clash = true;
          break;
        }
      }
      return {};
    },
    line(line) {
      if (!clash) return line;
      clash = false;
      return `${JSON.stringify(JSON.parse(line))}\n`;
    },
  };
}

function fragmentOf(logger: Logger): string {
  return (logger as unknown as Bound)[chindingsSym] ?? "";
}

function parseFragment(fragment: string): Record<string, unknown> {
  return JSON.parse(`{${fragment.slice(1)}}`) as Record<string, unknown>;
}

function toFragment(bindings: Record<string, unknown>): string {
  const json = JSON.stringify(bindings);
  return json === "{}" ? "" : `,${json.slice(1, -1)}`;
}
