import { readdirSync, readFileSync } from "node:fs";

// Everything a terminal started, found in /proc, and killed. A PTY's program leads a session of its
// own; an interactive shell puts each job in a process group of its own inside that session, and a
// daemon may leave the session while staying a descendant. So the tree is: the session's members,
// plus the descendants of each, taken before any is signalled (orphans are re-parented once their
// parent dies). Without /proc (macOS), the leader's process group is the best we can do.

interface Proc {
  pid: number;
  ppid: number;
  sid: number;
  /** Start time in clock ticks since boot: with the pid, names one process even if the pid is reused. */
  start: string;
  zombie: boolean;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces or parentheses: read after the last one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      ppid: Number(fields[1]),
      sid: Number(fields[3]),
      start: fields[19] ?? "",
      zombie: fields[0] === "Z",
    };
  } catch {
    return undefined; // gone while we looked
  }
}

function allProcs(): Proc[] {
  const procs: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const proc = readProc(Number(entry));
    if (proc && !proc.zombie) procs.push(proc);
  }
  return procs;
}

export const hasProcFs = (): boolean => {
  try {
    return readdirSync("/proc/self").length > 0;
  } catch {
    return false;
  }
};

/** The live processes of `leader`'s session and all their descendants (the leader too, if alive). */
export function sessionTree(leader: number): Proc[] {
  const procs = allProcs();
  const tree = new Map(procs.filter((p) => p.sid === leader || p.pid === leader).map((p) => [p.pid, p]));
  for (let grew = true; grew; ) {
    grew = false;
    for (const proc of procs)
      if (!tree.has(proc.pid) && tree.has(proc.ppid)) {
        tree.set(proc.pid, proc);
        grew = true;
      }
  }
  return [...tree.values()];
}

const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name);
  } catch {
    // already gone, or not ours
  }
};

const stillThere = (proc: Proc) => {
  const now = readProc(proc.pid);
  return now !== undefined && !now.zombie && now.start === proc.start;
};

/**
 * Hangs up on a terminal's whole tree (SIGHUP, what closing a terminal sends, with SIGCONT for
 * stopped jobs), then SIGKILLs whatever is left after `graceMs`. Resolves when none is left, or
 * after a last bounded wait (a process in uninterruptible sleep dies when the kernel lets it).
 */
export async function killSessionTree(leader: number, graceMs: number): Promise<void> {
  if (!hasProcFs()) {
    for (const name of ["SIGHUP", "SIGCONT"] as const) signal(-leader, name);
    await delay(graceMs);
    signal(-leader, "SIGKILL");
    return;
  }
  const tree = sessionTree(leader);
  for (const proc of tree) signal(proc.pid, "SIGHUP");
  for (const proc of tree) signal(proc.pid, "SIGCONT");
  if (await until(() => !tree.some(stillThere), graceMs)) return;
  // Anything that joined the session meanwhile goes too.
  const left = [...tree.filter(stillThere), ...sessionTree(leader)];
  for (const proc of left) signal(proc.pid, "SIGKILL");
  await until(() => !left.some(stillThere), 2000);
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await delay(Math.min(20, Math.max(1, deadline - Date.now())));
  }
  return true;
}
