import { join } from "node:path";
import { Cleanup } from "./cleanup.ts";
import { withDeadline } from "./deadline.ts";
import { measureFailureDetection } from "./failure-detection.ts";
import { type Figure, failed } from "./figure.ts";
import { measureFrontDoor } from "./front-door.ts";
import { measureIdleMemory } from "./idle-memory.ts";
import { measureInstall } from "./install.ts";
import { describeMachine } from "./machine.ts";
import { mergeRuns, readWrittenRun } from "./partial-run.ts";
import { measureReconnectStorm } from "./reconnect-storm.ts";
import { printTable, type Run, type Section, writeBenchmarksMd, writeResults } from "./report.ts";
import { measureRoundTrip } from "./round-trip.ts";
import { measureSandboxOverhead } from "./sandbox-overhead.ts";
import { measureSubtaskOverhead } from "./subtask-overhead.ts";
import { measureTerminalFlood } from "./terminal-flood.ts";

// `pnpm bench [part…] [--write]`: runs the measurements one after another, each with its own
// cleanup, then prints the table. A full run rewrites bench/results.json and BENCHMARKS.md; a run of
// some parts leaves them alone unless --write asks to replace those parts' sections in them.

const MEASUREMENTS = [
  { key: "round-trip", title: "Forwarded round trip vs raw ws echo (one process)", run: measureRoundTrip },
  { key: "memory", title: "Router memory with idle hosts", run: measureIdleMemory },
  { key: "storm", title: "Reconnect storm after a router crash", run: measureReconnectStorm },
  { key: "failure", title: "Failure detection", run: measureFailureDetection },
  {
    key: "subtask",
    title: "Subtask overhead: one-step worker, local and cross-host, vs a direct call",
    run: measureSubtaskOverhead,
  },
  {
    key: "sandbox",
    title: "Sandbox overhead per command: `true` and a 100-file `ls`, bwrap vs none",
    run: measureSandboxOverhead,
  },
  {
    key: "terminal-flood",
    title: "Chat beside a terminal flooding the same link (fast and slow reader)",
    run: measureTerminalFlood,
  },
  {
    key: "front-door",
    title: "One address flooding the router: a paired host and the webhook meanwhile",
    run: measureFrontDoor,
  },
  // Packing and `npm install -g` alone take 1–2 minutes (better-sqlite3 may compile from source).
  {
    key: "install",
    title: "Installed package: start-up, idle memory, size",
    run: measureInstall,
    deadlineMs: 420_000,
  },
] as const;
const MEASUREMENT_DEADLINE_MS = 240_000;

const repoRoot = join(import.meta.dirname, "..");
const args = process.argv.slice(2);
const write = args.includes("--write");
const wanted = args.filter((arg) => arg !== "--write");
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
    const deadlineMs = "deadlineMs" in measurement ? measurement.deadlineMs : MEASUREMENT_DEADLINE_MS;
    figures = await withDeadline(measurement.run(current), deadlineMs, measurement.title);
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
const resultsPath = join(repoRoot, "bench", "results.json");
const writeAll = (written: Run, what: string) => {
  writeResults(resultsPath, written);
  writeBenchmarksMd(join(repoRoot, "BENCHMARKS.md"), written);
  console.log(`${what} bench/results.json and BENCHMARKS.md`);
};
if (wanted.length === 0) writeAll(run, "wrote");
else if (write) {
  // A part that could not run leaves the numbers it would replace as they were.
  const previous = readWrittenRun(resultsPath);
  if (crashed)
    console.error("--write: a part failed; bench/results.json and BENCHMARKS.md left as they were");
  else if (!previous) console.error("--write: no bench/results.json to update; run the whole bench once");
  else
    writeAll(
      mergeRuns(
        previous,
        run,
        MEASUREMENTS.map((m) => m.title),
      ),
      `replaced ${wanted.join(", ")} in`,
    );
}
// A missed target is a result, not an error; only a measurement that could not run fails the command.
process.exit(crashed ? 1 : 0);
