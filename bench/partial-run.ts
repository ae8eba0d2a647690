import { existsSync, readFileSync } from "node:fs";
import type { Figure } from "./figure.ts";
import type { Run, Section } from "./report.ts";

// `pnpm bench <part>… --write`: the sections just measured replace their namesakes in the last
// written results (or join them, in the order of the measurements); every other section is kept as
// it was, and the run's date, machine and duration stay those of the full run that measured them.

interface WrittenResults {
  date: string;
  machine: Run["machine"];
  durationS: number;
  measuredApart?: Array<{ group: string; date: string; durationS: number }>;
  results: Array<Figure & { group: string }>;
}

/** The run last written to `path`, its sections rebuilt from the flat results; undefined if none. */
export function readWrittenRun(path: string): Run | undefined {
  if (!existsSync(path)) return undefined;
  const written = JSON.parse(readFileSync(path, "utf8")) as WrittenResults;
  const sections = new Map<string, Section>();
  for (const { group, ...figure } of written.results) {
    const section = sections.get(group) ?? { title: group, figures: [] };
    section.figures.push(figure);
    sections.set(group, section);
  }
  for (const { group, date, durationS } of written.measuredApart ?? []) {
    const section = sections.get(group);
    if (section) section.measured = { date, durationS };
  }
  return {
    date: written.date,
    machine: written.machine,
    durationS: written.durationS,
    sections: [...sections.values()],
  };
}

/** `previous` with the sections of `partial` put in, each marked with when it was measured. */
export function mergeRuns(previous: Run, partial: Run, order: readonly string[]): Run {
  const fresh = new Map(
    partial.sections.map((section) => [
      section.title,
      { ...section, measured: { date: partial.date, durationS: partial.durationS } },
    ]),
  );
  const kept = previous.sections.filter((section) => !fresh.has(section.title));
  const rank = (title: string) => {
    const index = order.indexOf(title);
    return index === -1 ? order.length : index;
  };
  const sections = [...kept, ...fresh.values()].sort((a, b) => rank(a.title) - rank(b.title));
  return { ...previous, sections };
}
