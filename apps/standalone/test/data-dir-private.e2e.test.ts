import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { makeTempDir, type SpawnedProcess, spawnApp, startFakeOpenAI } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// `phonework standalone` (the built package) under the usual umask 022 (which alone would leave files 0644 and
// directories 0755): during and after a session that writes the databases, their WAL (command
// output), history and a received file, everything under DATA_DIR is owner-only.

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0).reverse()) fn();
});

/** Every path under `root` (itself included) whose mode is not 0700 (directories) or 0600 (files). */
function walk(root: string): { files: string[]; offenders: string[] } {
  const files: string[] = [];
  const offenders: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path);
    const mode = stat.mode & 0o777;
    const name = relative(root, path) || ".";
    if (stat.isDirectory()) {
      if (mode !== 0o700) offenders.push(`${name}/ ${mode.toString(8)}`);
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else {
      files.push(name);
      if (mode !== 0o600) offenders.push(`${name} ${mode.toString(8)}`);
    }
  };
  visit(root);
  return { files, offenders };
}

describe("DATA_DIR permissions", () => {
  it("after a session under umask 022, every directory is 0700 and every file 0600", async () => {
    const data = makeTempDir();
    const work = makeTempDir();
    cleanups.push(data.remove, work.remove);
    writeFileSync(join(work.path, "report.txt"), "all good\n");
    const model = await startFakeOpenAI({ apiKey: "sk-local-test" });
    cleanups.push(() => void model.close());
    model.script(
      { toolCalls: [{ name: "file_ops", arguments: { action: "send", path: "report.txt" } }] },
      { text: "Sent you the report." },
    );

    // The child inherits the umask at spawn; the test process's own is put back at once.
    const saved = process.umask(0o022);
    let child: SpawnedProcess;
    try {
      child = spawnApp("standalone", {
        DATA_DIR: data.path,
        WORKING_DIR: work.path,
        NODE_ID: "my-box",
        OPENAI_BASE_URL: model.url,
        OPENAI_API_KEY: "sk-local-test",
        OPENAI_MODEL: "any-model",
      });
    } finally {
      process.umask(saved);
    }
    cleanups.push(() => child.kill("SIGKILL"));
    child.writeLine("/nodes");
    child.writeLine("/shell echo hi");
    child.writeLine("send me report.txt");
    await child.waitForStdout(/Sent you the report\./);
    // The file is its own delivery: it may be shown after the answer.
    await child.waitForStdout(/saved to \S+report\.txt/);

    // While it runs: the WAL and shared-memory files exist (a clean exit checkpoints them away).
    const running = walk(data.path);
    expect(running.files).toEqual(
      expect.arrayContaining(
        [join("router", "router.db"), join("host", "my-box", "state.db")].flatMap((db) => [
          db,
          `${db}-wal`,
          `${db}-shm`,
        ]),
      ),
    );
    expect(running.offenders).toEqual([]);

    child.endInput();
    expect((await child.exited).code).toBe(0);
    const after = walk(data.path);
    // The walk saw what matters, so an empty offender list means something.
    expect(after.files).toEqual(
      expect.arrayContaining([
        join("router", "router.db"),
        join("host", "my-box", "state.db"),
        // The terminal chat's log and context in the workspace.
        join("host", "my-box", "workspace", "channels", "terminal", "terminal", "log.jsonl"),
        join("host", "my-box", "workspace", "channels", "terminal", "terminal", "context.jsonl"),
        expect.stringMatching(/^files\/\d+-report\.txt$/),
      ]),
    );
    expect(after.offenders).toEqual([]);
  });
});
