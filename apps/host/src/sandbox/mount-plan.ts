// What a sandboxed command sees, as bubblewrap mounts, and the order they are applied in. bwrap
// applies mounts in argument order, a later one covering what an earlier one put at or under its
// path, so the plan is sorted parent-first: the most specific rule for a path is the one that holds
// (the workspace read-only inside a hidden DATA_DIR, a scratch directory writable inside it).

/**
 * ro/rw: the host's path bound at the same place; empty-dir: a fresh tmpfs (a hidden directory);
 * empty-file: /dev/null bound over it (a hidden file or socket); dev, proc: bwrap's own.
 */
export type MountHow = "ro" | "rw" | "empty-dir" | "empty-file" | "dev" | "proc";

/**
 * When two rules name the same path, the higher rank holds: a user's SANDBOX_HIDE over what is
 * writable, what the user made writable (WORKING_DIR, SANDBOX_WRITABLE) over the built-in hidden
 * paths, and those over a read-only re-exposure.
 */
export const Rank = {
  base: 0,
  reexpose: 1,
  builtInHide: 2,
  writable: 3,
  userHide: 4,
} as const;

export interface Mount {
  /** Absolute, symlinks resolved (bwrap would follow them; the order must be by the real path). */
  path: string;
  how: MountHow;
  rank: number;
}

export interface MountPlan {
  mounts: Mount[];
  /** off: a network namespace of its own (no interfaces but an isolated loopback). */
  network: "on" | "off";
  /** Environment variables removed inside (the host's own secrets). */
  unsetEnv: readonly string[];
  /** Where the command starts; bwrap fails rather than start it elsewhere. */
  cwd: string;
}

/** The whole filesystem read-only, fresh /dev, /proc (this sandbox's processes only) and /tmp. */
export const baseMounts = (): Mount[] => [
  { path: "/", how: "ro", rank: Rank.base },
  { path: "/dev", how: "dev", rank: Rank.base },
  { path: "/proc", how: "proc", rank: Rank.base },
  { path: "/tmp", how: "empty-dir", rank: Rank.base },
];

const depth = (path: string) => path.split("/").filter(Boolean).length;

/** One mount per path (the highest rank), parents before children; ties keep the given order. */
export function orderMounts(mounts: readonly Mount[]): Mount[] {
  const byPath = new Map<string, Mount>();
  for (const mount of mounts) {
    const held = byPath.get(mount.path);
    if (!held || mount.rank >= held.rank) byPath.set(mount.path, mount);
  }
  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path));
}

function mountArgs({ path, how }: Mount): string[] {
  switch (how) {
    case "ro":
      return ["--ro-bind", path, path];
    case "rw":
      return ["--bind", path, path];
    case "empty-dir":
      return ["--tmpfs", path];
    case "empty-file":
      return ["--ro-bind", "/dev/null", path];
    case "dev":
      return ["--dev", path];
    case "proc":
      return ["--proc", path];
  }
}

/**
 * bwrap's options for a plan (the program and its arguments follow a `--`). A pid namespace of its
 * own with bwrap as its init: when the command ends, or bwrap is killed (its process group is
 * signalled, or the host dies: --die-with-parent), every process inside is killed with it, even
 * one that left the process group (setsid, a daemon). bwrap arms --die-with-parent and becomes
 * the namespace's init while it sets up; signalled in those first milliseconds, its init can
 * outlive a SIGTERM (an init ignores it), which the process tree's SIGKILL after the grace covers.
 */
export function bwrapArgs(plan: MountPlan): string[] {
  return [
    // Run by root, bwrap would leave the command its capabilities: enough to remount / writable.
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--unshare-pid",
    ...(plan.network === "off" ? ["--unshare-net"] : []),
    ...orderMounts(plan.mounts).flatMap(mountArgs),
    ...plan.unsetEnv.flatMap((name) => ["--unsetenv", name]),
    "--chdir",
    plan.cwd,
  ];
}
