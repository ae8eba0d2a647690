import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Figure } from "./figure.ts";
import type { Machine } from "./machine.ts";
import { METHOD } from "./method.ts";

// The three outputs of a run: a table on stdout, bench/results.json, and BENCHMARKS.md.

export interface Section {
  title: string;
  figures: Figure[];
  /** Set when this section was measured on its own (`pnpm bench <part> --write`), not in the run. */
  measured?: { date: string; durationS: number };
}

export interface Run {
  date: string;
  machine: Machine;
  durationS: number;
  sections: Section[];
}

const formatValue = (f: Figure) =>
  f.value === null
    ? "—"
    : `${f.value.toLocaleString("en-US", { maximumFractionDigits: 3 })}${f.unit ? ` ${f.unit}` : ""}`;
const formatMet = (f: Figure) => (f.met === null ? "" : f.met ? "met" : "MISSED");

export function printTable(run: Run): void {
  const rows = run.sections.flatMap((s) => s.figures);
  const nameWidth = Math.max(...rows.map((f) => f.name.length));
  const valueWidth = Math.max(...rows.map((f) => formatValue(f).length));
  const targetWidth = Math.max(6, ...rows.map((f) => (f.target ?? "").length));
  for (const section of run.sections) {
    console.log(`\n${section.title}`);
    for (const f of section.figures) {
      const line = `  ${f.name.padEnd(nameWidth)}  ${formatValue(f).padStart(valueWidth)}  ${(f.target ?? "").padEnd(targetWidth)}  ${formatMet(f)}`;
      console.log(line.trimEnd());
      if (f.note) console.log(`  ${" ".repeat(nameWidth)}  ↳ ${f.note}`);
    }
  }
  const targets = rows.filter((f) => f.met !== null);
  console.log(
    `\n${targets.filter((f) => f.met).length} of ${targets.length} targets met (${run.durationS} s)`,
  );
}

/** Written beside a temporary name first, so a reader never sees half a file. */
export function writeResults(path: string, run: Run): void {
  const results = run.sections.flatMap((s) => s.figures.map((f) => ({ group: s.title, ...f })));
  const measuredApart = run.sections.flatMap((s) => (s.measured ? [{ group: s.title, ...s.measured }] : []));
  const json = {
    date: run.date,
    machine: run.machine,
    durationS: run.durationS,
    ...(measuredApart.length > 0 ? { measuredApart } : {}),
    results,
  };
  writeFileSync(`${path}.tmp`, `${JSON.stringify(json, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function writeBenchmarksMd(path: string, run: Run): void {
  const m = run.machine;
  const all = run.sections.flatMap((s) => s.figures);
  const targets = all.filter((f) => f.met !== null);
  const missed = targets.filter((f) => !f.met);
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const lines = [
    "# Benchmarks",
    "",
    "Measured by `pnpm bench` (bench/run.ts); the raw numbers are in `bench/results.json`. Regenerated on every full run; `pnpm bench <part> --write` replaces one section and says so under its title.",
    "",
    `**Latest run:** ${run.date} (${run.durationS} s)  `,
    `**Machine:** ${m.cpuModel}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.os}`,
    "",
    `**Targets:** ${targets.length - missed.length} of ${targets.length} met${missed.length ? ` — missed: ${missed.map((f) => f.name).join("; ")}` : ""}.`,
    "",
  ];
  for (const section of run.sections) {
    lines.push(
      `## ${section.title}`,
      "",
      ...(section.measured
        ? [
            `_Measured on its own (\`pnpm bench <part> --write\`) on ${section.measured.date} (${section.measured.durationS} s); the other sections are from the run above._`,
            "",
          ]
        : []),
      "| Figure | Value | Target | Met | Notes |",
      "|---|---:|---|---|---|",
    );
    for (const f of section.figures) {
      const met = f.met === null ? "" : f.met ? "✅ met" : "❌ missed";
      lines.push(
        `| ${cell(f.name.trim())} | ${formatValue(f)} | ${f.target ?? ""} | ${met} | ${cell(f.note ?? "")} |`,
      );
    }
    lines.push("");
  }
  // Hand-written between runs (profiles before and after a change): kept across regenerations.
  const profiles = join(dirname(path), "bench", "profiles.md");
  if (existsSync(profiles)) lines.push(readFileSync(profiles, "utf8").trim(), "");
  lines.push(METHOD.trim(), "");
  writeFileSync(path, lines.join("\n"));
}
