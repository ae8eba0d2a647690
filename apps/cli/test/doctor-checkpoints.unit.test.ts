import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkCheckpointThread } from "../src/doctor/checks/checkpoint-thread.ts";

// doctor's "checkpoints": the checkpoint worker thread started against a temporary database.

describe("doctor: checkpoints off the main thread", () => {
  it("the worker loads better-sqlite3 and checkpoints: ✅, and its temporary database is gone", async () => {
    expect(await checkCheckpointThread()).toEqual({
      status: "ok",
      title: "checkpoints",
      detail: "off the main thread (a worker thread loaded better-sqlite3 and checkpointed a test database)",
    });
  });

  it("a worker that cannot load its driver: ⚠️ checkpoints will run on the main thread, with the reason", async () => {
    const driverPath = join(tmpdir(), "no-such-dir", "better-sqlite3.js");
    const check = await checkCheckpointThread({ driverPath });
    expect(check.status).toBe("warn");
    expect(check.detail).toMatch(
      /^the checkpoint worker thread failed \(.*no-such-dir.*\): under load, WAL checkpoints will run on the main thread/,
    );
    expect(check.fix).toContain("reinstall");
  });
});
