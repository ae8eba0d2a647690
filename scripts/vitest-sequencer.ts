import { BaseSequencer, type TestSpecification } from "vitest/node";

// The order test files start in. The whole run lasts as long as its slowest worker, so the files
// most likely to be long start first: the e2e project's (processes, a browser), then integration,
// then unit. Within a project vitest's own order holds: the last run's durations where it has
// them, else the biggest files first.

const RANK: Record<string, number> = { e2e: 0, integration: 1, unit: 2 };

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => RANK[spec.project.name] ?? 1;
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
