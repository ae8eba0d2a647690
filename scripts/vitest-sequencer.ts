import { BaseSequencer, type TestSpecification } from "vitest/node";

// The order test files start in. The whole run lasts as long as its slowest worker, so the files
// most likely to be long start first: the e2e files (`*.e2e.test.ts`: processes, a browser), then
// the other integration files, then the unit files. Within each vitest's own order holds: the last
// run's durations where it has them, else the biggest files first.

const rank = (spec: TestSpecification) =>
  spec.moduleId.endsWith(".unit.test.ts") ? 2 : spec.moduleId.endsWith(".e2e.test.ts") ? 0 : 1;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
