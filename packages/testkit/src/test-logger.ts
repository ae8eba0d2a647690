import { Writable } from "node:stream";
import pino, { type Logger } from "pino";

/** A real pino logger that keeps its JSON lines in memory so tests can assert on what was logged. */
export function createTestLogger(level = "debug"): {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
} {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level }, sink);
  const lines = () =>
    chunks
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}
