import { Writable } from "node:stream";

/** A writable stream that keeps what it gets and says whether it is a terminal, as process.stderr does. */
export function captureStream(isTTY: boolean): {
  stream: Writable & { isTTY: boolean };
  output: () => string;
} {
  let out = "";
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        out += chunk.toString();
        done();
      },
    }),
    { isTTY },
  );
  return { stream, output: () => out };
}
