import { readdirSync, readFileSync } from "node:fs";

// Whether any process on this machine has `marker` in its command line (read from /proc,
// so it needs no extra tools). Tests use a unique marker, e.g. `sleep 31.4159`.
export function processRunning(marker: string): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(marker)) return true;
    } catch {
      // the process ended while we looked
    }
  }
  return false;
}

/** SIGKILLs every process whose command line and environment match; returns how many. */
export function killProcesses(match: (cmdline: string, environ: string) => boolean): number {
  let killed = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").replaceAll("\0", "\n");
      if (!match(cmdline, environ)) continue;
      process.kill(Number(entry), "SIGKILL");
      killed++;
    } catch {
      // gone, or not ours to read
    }
  }
  return killed;
}
