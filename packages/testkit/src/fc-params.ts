import fc from "fast-check";

// One seed policy for every property test: `FC_SEED` when set (to replay a failure), a fixed seed
// in CI (so a red build is the same red build when rerun), a random one locally (so running the
// suite keeps exploring). A failure names its seed, so any run can be replayed with FC_SEED=<n>.

/** The seed CI runs with when FC_SEED is not set. Any integer would do; it only has to be fixed. */
export const CI_SEED = 424_242;

/** The seed for this run: FC_SEED, else CI_SEED in CI, else a random one. */
export function propertySeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.FC_SEED?.trim();
  if (given) {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed))
      throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(given)}`);
    return seed;
  }
  if (env.CI && env.CI !== "false" && env.CI !== "0") return CI_SEED;
  return (Math.random() * 2 ** 31) | 0;
}

/** The text a failing property throws with: fast-check's report and how to replay it. */
export function replayMessage<Ts>(details: fc.RunDetails<Ts>): string {
  return `${fc.defaultReportMessage(details)}\nReplay with FC_SEED=${details.seed}`;
}

function report<Ts>(details: fc.RunDetails<Ts>): void {
  if (details.failed) throw new Error(replayMessage(details), { cause: details.errorInstance });
}

/**
 * fast-check parameters with this run's seed and a failure message that says how to replay it:
 * `fc.assert(property, fcParams({ numRuns: 200 }))`.
 */
export function fcParams<Ts>(params: fc.Parameters<Ts> = {}): fc.Parameters<Ts> {
  return { ...params, seed: propertySeed(), reporter: report };
}
