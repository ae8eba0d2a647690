import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundledScript, makeTempDir, type SpawnedProcess, spawnProcess } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  ConfigError,
  DATA_DIR_LOCK_FILE,
  DataDirInUseError,
  type DataDirLockOptions,
  lockDataDir,
  processIsAlive,
} from "../src/index.ts";

// One process per DATA_DIR. Other processes are played by other pids with an injected liveness
// check; the last test races real processes over one stale lock.

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0).reverse()) fn();
});

function dataDir(): string {
  const dir = makeTempDir();
  cleanups.push(dir.remove);
  return dir.path;
}

/** A process `pid` in a world where `alive` are the running pids; no process exit hooks. */
function as(pid: number, alive: number[]): DataDirLockOptions {
  return { pid, isAlive: (other) => alive.includes(other), onExit: () => () => {} };
}

const readLock = (dir: string) => JSON.parse(readFileSync(join(dir, DATA_DIR_LOCK_FILE), "utf8"));

/** The pid of a process that has come and gone. */
async function deadPid(): Promise<number> {
  const child = spawnProcess(process.execPath, ["-e", ""]);
  await child.exited;
  return child.child.pid as number;
}

describe("lockDataDir", () => {
  it("creates DATA_DIR/phonework.lock (0600) naming the pid and app; release removes it", () => {
    const dir = dataDir();
    const lock = lockDataDir(dir, "phonework-host", { ...as(100, []), now: () => Date.UTC(2026, 0, 2) });
    expect(lock.path).toBe(join(dir, "phonework.lock"));
    expect(readLock(dir)).toEqual({
      pid: 100,
      app: "phonework-host",
      started_at: "2026-01-02T00:00:00.000Z",
      token: expect.stringMatching(/^100-[0-9a-f]{16}$/),
    });
    expect(statSync(lock.path).mode & 0o777).toBe(0o600);
    lock.release();
    expect(readdirSync(dir)).toEqual([]); // no temp or claim file left either
  });

  it("refuses while the holder is alive, naming it in one line (a ConfigError: exit 2)", () => {
    const dir = dataDir();
    lockDataDir(dir, "phonework-host", as(100, []));
    let refused: unknown;
    try {
      lockDataDir(dir, "phonework-standalone", as(200, [100]));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataDirInUseError);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toBe(
      `DATA_DIR ${dir} is in use by phonework-host (pid 100); stop it, or give this one another DATA_DIR`,
    );
    expect(readLock(dir).pid).toBe(100);
  });

  it("takes over a stale lock: its pid is gone, or is our own (a restarted container)", () => {
    const dir = dataDir();
    lockDataDir(dir, "phonework-host", as(100, []));
    lockDataDir(dir, "phonework-host", as(200, [])); // 100 was SIGKILLed
    expect(readLock(dir)).toMatchObject({ pid: 200 });
    lockDataDir(dir, "phonework-host", as(200, [200])); // same pid, new life
    expect(readLock(dir)).toMatchObject({ pid: 200 });
    expect(readdirSync(dir)).toEqual([DATA_DIR_LOCK_FILE]);
  });

  it("takes over a lock file it cannot read (not one we wrote)", () => {
    const dir = dataDir();
    for (const junk of ["", "{not json", JSON.stringify({ pid: -1, app: "x", started_at: "", token: "t" })]) {
      writeFileSync(join(dir, DATA_DIR_LOCK_FILE), junk);
      lockDataDir(dir, "phonework-host", as(300, [])).release();
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("release removes only its own lock, not the one that took over from it", () => {
    const dir = dataDir();
    const old = lockDataDir(dir, "phonework-host", as(100, []));
    lockDataDir(dir, "phonework-host", as(200, [])); // 100 looked dead (hung, or a reused pid)
    old.release();
    expect(readLock(dir).pid).toBe(200);
  });

  it("defers to a live process that is taking over the same stale lock", () => {
    const dir = dataDir();
    lockDataDir(dir, "phonework-host", as(100, []));
    const { token } = readLock(dir);
    const claim = join(dir, `${DATA_DIR_LOCK_FILE}.takeover-${token}`);
    writeFileSync(
      claim,
      JSON.stringify({ pid: 150, app: "phonework-router", started_at: "", token: "150-a" }),
    );
    expect(() => lockDataDir(dir, "phonework-host", as(200, [150]))).toThrow(
      "is in use by phonework-router (pid 150)",
    );
    expect(readLock(dir).pid).toBe(100); // left for 150 to remove
  });

  it("gets past a takeover whose process died midway, and cleans up after it", () => {
    const dir = dataDir();
    lockDataDir(dir, "phonework-host", as(100, []));
    const { token } = readLock(dir);
    const claim = join(dir, `${DATA_DIR_LOCK_FILE}.takeover-${token}`);
    writeFileSync(
      claim,
      JSON.stringify({ pid: 150, app: "phonework-router", started_at: "", token: "150-a" }),
    );
    const lock = lockDataDir(dir, "phonework-host", as(200, []));
    expect(readLock(dir).pid).toBe(200);
    expect(existsSync(claim)).toBe(false);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("releases at process exit through the hook it was given, and unhooks on release", () => {
    const dir = dataDir();
    const hooks = new Set<() => void>();
    const onExit = (fn: () => void) => {
      hooks.add(fn);
      return () => hooks.delete(fn);
    };
    lockDataDir(dir, "phonework-host", { ...as(100, []), onExit });
    for (const fn of hooks) fn();
    expect(existsSync(join(dir, DATA_DIR_LOCK_FILE))).toBe(false);
    expect(hooks.size).toBe(0);
  });
});

describe("processIsAlive", () => {
  it("is true for a running process and false for one that has exited", async () => {
    expect(processIsAlive(process.pid)).toBe(true);
    expect(processIsAlive(await deadPid())).toBe(false);
  });
});

describe("racing real processes over a stale lock", () => {
  it("exactly one of eight gets it; the others name the winner; the winner releases it at exit", async () => {
    const dir = dataDir();
    const barrier = join(dataDir(), "go");
    writeFileSync(
      join(dir, DATA_DIR_LOCK_FILE),
      JSON.stringify({ pid: await deadPid(), app: "phonework-host", started_at: "", token: "1-stale" }),
    );
    const racer = await bundledScript(join(import.meta.dirname, "lock-racer.ts"));
    const racers: SpawnedProcess[] = Array.from({ length: 8 }, () =>
      spawnProcess(process.execPath, [racer, dir, barrier]),
    );
    cleanups.push(() => {
      for (const racer of racers) racer.kill("SIGKILL");
    });
    await Promise.all(racers.map((racer) => racer.waitForStdout(/^ready$/m)));
    writeFileSync(barrier, "");
    const outcomes = await Promise.all(racers.map((racer) => racer.waitForStdout(/^(locked|refused: .*)$/m)));

    const winners = racers.filter((_, i) => outcomes[i]?.[1] === "locked");
    expect(winners).toHaveLength(1);
    const winnerPid = winners[0]?.child.pid;
    expect(readLock(dir)).toMatchObject({ pid: winnerPid, app: "racer" });
    // A loser names the winner, or another loser it met mid-takeover: never a stranger.
    const pids = racers.map((racer) => racer.child.pid);
    for (const [i, outcome] of outcomes.entries()) {
      if (racers[i] === winners[0]) continue;
      const named = outcome[1]?.match(
        /^refused: DATA_DIR (.+) is in use by racer \(pid (\d+)\); stop it, or give this one another DATA_DIR$/,
      );
      expect(named?.[1]).toBe(dir);
      expect(pids).toContain(Number(named?.[2]));
      expect(Number(named?.[2])).not.toBe(racers[i]?.child.pid);
    }

    for (const racer of racers) racer.endInput();
    expect((await Promise.all(racers.map((racer) => racer.exited))).map((exit) => exit.code)).toEqual(
      racers.map(() => 0),
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
