import { join } from "node:path";
import { Cleanup } from "./cleanup.ts";
import { withDeadline } from "./deadline.ts";
import { measureFailureDetection } from "./failure-detection.ts";
import { type Figure, failed } from "./figure.ts";
import { measureIdleMemory } from "./idle-memory.ts";
import { describeMachine } from "./machine.ts";
import { measureReconnectStorm } from "./reconnect-storm.ts";
import { printTable, type Run, type Section, writeBenchmarksMd, writeResults } from "./report.ts";
import { measureRoundTrip } from "./round-trip.ts";

// `pnpm bench [part…]`: runs the measurements one after another, each with its own cleanup,
// then prints the table and (on a full run) rewrites bench/results.json and BENCHMARKS.md.

const MEASUREMENTS = [
  { key: "round-trip", title: "Forwarded round trip vs raw ws echo (one process)", run: measureRoundTrip },
  { key: "memory", title: "Router memory with idle hosts", run: measureIdleMemory },
  { key: "storm", title: "Reconnect storm after a router crash", run: measureReconnectStorm },
  { key: "failure", title: "Failure detection", run: measureFailureDetection },
] as const;
const MEASUREMENT_DEADLINE_MS = 240_000;

const repoRoot = join(import.meta.dirname, "..");
const wanted = process.argv.slice(2);
const unknown = wanted.filter((key) => !MEASUREMENTS.some((m) => m.key === key));
if (unknown.length > 0) {
  console.error(
    `unknown part(s): ${unknown.join(", ")}; choose from ${MEASUREMENTS.map((m) => m.key).join(", ")}`,
  );
  process.exit(2);
}

let current = new Cleanup();
// Children exit on their own when this process goes, but temp dirs and in-process servers need this.
const abort = async (why: string, error?: unknown) => {
  console.error(`\nbench aborted: ${why}`, error ?? "");
  await current.runAll();
  process.exit(1);
};
process.once("SIGINT", () => void abort("interrupted"));
process.once("SIGTERM", () => void abort("terminated"));
process.once("uncaughtException", (error) => void abort("uncaught exception", error));
process.once("unhandledRejection", (error) => void abort("unhandled rejection", error));

const started = performance.now();
const sections: Section[] = [];
let crashed = false;
for (const measurement of MEASUREMENTS) {
  if (wanted.length > 0 && !wanted.includes(measurement.key)) continue;
  console.log(`▶ ${measurement.title}…`);
  const partStarted = performance.now();
  current = new Cleanup();
  let figures: Figure[];
  try {
    figures = await withDeadline(measurement.run(current), MEASUREMENT_DEADLINE_MS, measurement.title);
  } catch (error) {
    crashed = true;
    console.error(error);
    figures = [failed(measurement.title, error)];
  } finally {
    await current.runAll();
  }
  console.log(`  done in ${((performance.now() - partStarted) / 1000).toFixed(1)} s`);
  sections.push({ title: measurement.title, figures });
}

const run: Run = {
  date: new Date().toISOString(),
  machine: describeMachine(),
  durationS: Math.round((performance.now() - started) / 1000),
  sections,
};
printTable(run);
if (wanted.length === 0) {
  writeResults(join(repoRoot, "bench", "results.json"), run);
  writeBenchmarksMd(join(repoRoot, "BENCHMARKS.md"), run);
  console.log("wrote bench/results.json and BENCHMARKS.md");
}
// A missed target is a result, not an error; only a measurement that could not run fails the command.
process.exit(crashed ? 1 : 0);
