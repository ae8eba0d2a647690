import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// A fake systemctl or launchctl: a real executable on PATH that appends its argv (one call per
// line, words separated by spaces) to <name>.calls beside it and answers from a shell `case` on
// "$*". The installers run it through the real child-process boundary.

export interface FakeCommand {
  /** Every call so far, as its argv joined by spaces. */
  calls(): string[];
}

/**
 * `cases`: shell `case` arms over "$*", e.g. `is-active*) echo active ;;`. Anything unmatched
 * succeeds silently.
 */
export function writeFakeCommand(binDir: string, name: string, cases = ""): FakeCommand {
  const log = join(binDir, `${name}.calls`);
  const script = [
    "#!/bin/sh",
    `printf '%s\\n' "$*" >> '${log}'`,
    'case "$*" in',
    cases,
    "esac",
    "exit 0",
    "",
  ].join("\n");
  const path = join(binDir, name);
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return {
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}
