import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CleanupScope, type SpawnedProcess, spawnApp, waitFor } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// One process per DATA_DIR, with real processes: while a standalone runs, a second standalone and
// a host on its DATA_DIR each exit 2 with one line naming its pid; once it is SIGKILLed (no chance
// to remove its lock), the next standalone takes the stale lock over. The apps run as the package
// scripts run them (spawnApp), without pnpm in between: the pid in the lock and the pid SIGKILLed
// are then the app's own.

const scope = new CleanupScope();
afterEach(() => scope.run());
const track = (child: SpawnedProcess) => scope.track(child);

/** A standalone chatting on its stdin, which stays open, so it runs until told otherwise. */
function standalone(dataDir: string, workDir: string): SpawnedProcess {
  return track(spawnApp("standalone", { DATA_DIR: dataDir, WORKING_DIR: workDir, NODE_ID: "my-box" }));
}

/** Answers a chat command now (not just earlier): its node is online. */
async function answers(child: SpawnedProcess): Promise<void> {
  const before = child.stdout().length;
  child.writeLine("/nodes");
  await waitFor(() => /^→ my-box\s+\[ACTIVE\]/m.test(child.stdout().slice(before)), {
    message: `an answer to /nodes (stdout: ${child.stdout().slice(-300)} | stderr: ${child.stderr().slice(-300)})`,
  });
}

describe("one process per DATA_DIR (real processes)", () => {
  it("a second standalone and a host exit 2 naming the first's pid; after a SIGKILL the next one starts", async () => {
    const data = { path: scope.tempDir() };
    const work = { path: scope.tempDir() };
    const lockFile = join(data.path, "phonework.lock");

    const first = standalone(data.path, work.path);
    await answers(first);
    const inUse = `phonework: DATA_DIR ${data.path} is in use by phonework-standalone (pid ${first.child.pid}); stop it, or give this one another DATA_DIR\n`;

    const second = standalone(data.path, work.path);
    const host = track(
      spawnApp("host", {
        ROUTER_URL: "ws://127.0.0.1:9/ws/node", // never dialled: the lock is taken before connecting
        ROUTER_SECRET: "s",
        NODE_ID: "home-pc",
        DATA_DIR: data.path,
        WORKING_DIR: work.path,
        LOG_LEVEL: "warn",
      }),
    );
    const [secondExit, hostExit] = await Promise.all([second.exited, host.exited]);
    expect([secondExit.code, second.stderr()]).toEqual([2, inUse]);
    expect([hostExit.code, host.stderr()]).toEqual([2, inUse]);
    await answers(first); // still serving, untouched

    first.kill("SIGKILL");
    await first.exited;
    expect(JSON.parse(readFileSync(lockFile, "utf8")).pid).toBe(first.child.pid); // left behind

    const third = standalone(data.path, work.path);
    // Its first line is answered too: not taken for a redelivery of the first's (same router.db).
    await answers(third);
    expect(JSON.parse(readFileSync(lockFile, "utf8"))).toMatchObject({
      pid: third.child.pid,
      app: "phonework-standalone",
    });
    third.endInput();
    expect((await third.exited).code).toBe(0);
    expect(existsSync(lockFile)).toBe(false); // removed at a clean exit
  });
});
