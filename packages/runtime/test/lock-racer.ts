import { existsSync } from "node:fs";
import { lockDataDir } from "../src/data-dir-lock.ts";

// One racer of data-dir-lock.e2e.test.ts: waits at a barrier (a file appearing), then tries the lock and
// says how it went; a winner holds it until its stdin closes, then exits (and so releases it).

const [dataDir = "", barrier = ""] = process.argv.slice(2);
process.stdout.write("ready\n");
const pause = new Int32Array(new SharedArrayBuffer(4));
// Polled every millisecond, so all racers leave the barrier within about one of each other.
while (!existsSync(barrier)) Atomics.wait(pause, 0, 0, 1);
try {
  lockDataDir(dataDir, "racer");
  process.stdout.write("locked\n");
} catch (error) {
  process.stdout.write(`refused: ${(error as Error).message}\n`);
}
process.stdin.resume();
