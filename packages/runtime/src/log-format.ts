import { createRequire } from "node:module";
import { isatty } from "node:tty";
import pino from "pino";

// How a log destination's lines look: JSON for machines (a pipe, a file, a log collector), or
// pino-pretty's text for a person reading a terminal. LOG_FORMAT picks one for every destination;
// `auto` asks each destination whether it is a terminal. pino-pretty is loaded only for a
// destination that is pretty: a service writing JSON never loads it.

export type LogFormat = "auto" | "pretty" | "json";

/** Anything pino can write finished lines to: a stream, pino's own destination, a line filter. */
export interface LineSink {
  write(line: string): unknown;
}

export function chooseFormat(format: LogFormat, terminal: boolean): "pretty" | "json" {
  if (format !== "auto") return format;
  return terminal ? "pretty" : "json";
}

/** A file descriptor is asked directly; a stream answers by its `isTTY`, as process.stderr does. */
export function isTerminal(target: number | NodeJS.WritableStream): boolean {
  return typeof target === "number" ? isatty(target) : (target as { isTTY?: boolean }).isTTY === true;
}

/**
 * `target` in the format asked for. A file descriptor is written synchronously, so the last lines
 * before process.exit are not lost.
 */
export function logDestination(target: number | NodeJS.WritableStream, format: LogFormat): LineSink {
  const terminal = isTerminal(target);
  const out: LineSink = typeof target === "number" ? pino.destination({ dest: target, sync: true }) : target;
  if (chooseFormat(format, terminal) === "json") return out;
  // Colours only on a terminal that wants them (NO_COLOR, TERM=dumb); never in a file or a pipe.
  return prettyLines(out, { colorize: terminal && pinoPretty().isColorSupported });
}

/**
 * Writes each JSON line to `out` as pino-pretty text. pino-pretty's own stream is asynchronous
 * (lines still queued in it are lost at exit), its formatter is not: it is used here, in process.
 * Lines arrive already redacted, since pino's streamWrite hook runs before any destination.
 */
export function prettyLines(out: LineSink, { colorize }: { colorize: boolean }): LineSink {
  const pretty = pinoPretty().prettyFactory({
    colorize,
    translateTime: "SYS:standard",
    ignore: "pid,hostname",
  });
  return { write: (line: string) => out.write(pretty(line)) };
}

function pinoPretty(): typeof import("pino-pretty") {
  return createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");
}
