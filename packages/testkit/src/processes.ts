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
