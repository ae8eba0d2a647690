import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CleanupScope, type SpawnedProcess, spawnPnpmScript, waitFor } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The repo's `pnpm standalone` / `pnpm host` are for development, but they must behave like the
// installed `phonework`: a supervisor's SIGTERM to pnpm reaches the real process (the scripts
// `exec` node), and the commands it runs see the user's PATH, not the repository's bins.

const scope = new CleanupScope();
afterAll(() => scope.run());

// These run the sources through tsx, which transforms the app's TypeScript on a start with a cold
// cache (every new checkout or change): about 5 s on an idle 2-core machine, 18 s measured with
// the cores busy, against 2.5 s warm. So a start is waited for with a deadline meant only to catch
// a hang; the stop, what the second test is about (0.2–1.3 s measured), has its own shorter one.
const START_MS = 60_000;
const slow = { timeout: START_MS + 20_000 };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// One `pnpm standalone` for both tests (each start costs a tsx transform of the app): the shell
// command first, over stdin (left open), then the supervisor's SIGTERM that ends it.
describe("pnpm scripts", () => {
  let run: SpawnedProcess;
  let dataDir: string;
  beforeAll(() => {
    dataDir = scope.tempDir();
    run = scope.track(spawnPnpmScript("standalone", { DATA_DIR: dataDir, NODE_ID: "box" }));
  });
  it(
    "`/shell` under `pnpm standalone` sees the user's PATH: no node_modules/.bin, no npm_* variables",
    slow,
    async () => {
      run.child.stdin?.write('/shell echo "PATH=$PATH"; echo "npm vars: $(env | grep -c ^npm_)"\n');
      const out = await waitFor(() => (/npm vars: \d+/.test(run.stdout()) ? run.stdout() : undefined), {
        timeoutMs: START_MS,
        message: "the /shell answer",
      });
      const path = /PATH=(.*)/.exec(out)?.[1] ?? "";
      expect(path).not.toBe("");
      expect(path.split(":").filter((entry) => entry.includes("node_modules"))).toEqual([]);
      expect(out).toContain("npm vars: 0");
      // …while the test runner itself was started by pnpm with those bins first on its PATH.
      expect(process.env.PATH?.split(":").some((entry) => entry.endsWith("node_modules/.bin"))).toBe(true);
    },
  );

  it("SIGTERM to `pnpm standalone` stops the node process itself (none left orphaned)", slow, async () => {
    // stdin stays open: the standalone keeps running until a signal.
    const lock = join(dataDir, "phonework.lock");
    const log = join(dataDir, "logs", "phonework.log");
    await waitFor(() => existsSync(log) && readFileSync(log, "utf8").includes("standalone ready"), {
      timeoutMs: START_MS,
      message: "the standalone to be ready",
    });
    const { pid } = JSON.parse(readFileSync(lock, "utf8")) as { pid: number };
    expect(pid).not.toBe(run.child.pid); // pnpm is the parent; the app is its own process
    run.kill("SIGTERM"); // to pnpm, as a supervisor would
    expect(await run.exitedWithin(10_000)).toEqual({ code: 0, signal: null });
    await waitFor(() => !isAlive(pid), { timeoutMs: 10_000, message: `node process ${pid} to exit` });
    expect(existsSync(lock)).toBe(false); // it shut down cleanly, releasing the data directory
  });
});
