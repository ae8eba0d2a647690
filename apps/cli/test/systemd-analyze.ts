import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

// `systemd-analyze verify`, the check that systemd itself accepts a unit we generate. Where it is
// missing the check is skipped, except under CI (CI set), where that fails the run instead.

const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";

export const canVerifyUnits = existsSync(SYSTEMD_ANALYZE) || Boolean(process.env.CI);

/** Its exit status and everything it printed: a clean unit gives status 0 and no output at all. */
export function verifyUnit(file: string): { status: number | null; output: string } {
  const result = spawnSync(SYSTEMD_ANALYZE, ["verify", file], { encoding: "utf8" });
  if (result.error) throw result.error;
  return { status: result.status, output: result.stdout + result.stderr };
}
