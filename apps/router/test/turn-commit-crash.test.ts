import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundledScript, repoRoot } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Killed between the commit and the ack (and before the commit): the platform's redelivery finds
// the message stored once or not at all — never acknowledged and lost, never stored twice.

const dir = mkdtempSync(join(tmpdir(), "turn-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The child, built once to plain JavaScript (three starts, none through a TypeScript loader). */
let child: string;
beforeAll(async () => {
  child = await bundledScript(join(import.meta.dirname, "fixtures", "store-then-die.ts"));
});
const run = (db: string, mode: string) =>
  spawnSync(process.execPath, [child, db, mode], { cwd: repoRoot, encoding: "utf8" });

describe("the intake's store, killed around its commit", () => {
  it("killed before the commit: not acked, stored at the redelivery; killed after it, before the ack: the next redelivery is dropped and the message handled once", () => {
    const db = join(dir, "router.db");
    const beforeCommit = run(db, "die-before-commit");
    expect(beforeCommit.signal).toBe("SIGKILL");
    expect(beforeCommit.stdout).toBe(""); // never acknowledged: the platform redelivers
    const afterCommit = run(db, "die-after-commit"); // that redelivery: stored this time (not lost)
    expect(afterCommit.signal).toBe("SIGKILL");
    expect(afterCommit.stdout).not.toContain("ack"); // committed, never acknowledged
    const again = run(db, "redeliver");
    expect(again.status).toBe(0);
    // Recognised as seen (not stored twice), and the one stored copy is still there to handle.
    expect(again.stdout.split("\n").slice(0, 3)).toEqual(["dropped", '["keep me"]', "ack"]);
  });
});
