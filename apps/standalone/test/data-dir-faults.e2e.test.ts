import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, type SpawnedProcess, spawnApp } from "@phonework/testkit";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";

// DATA_DIR on a read-only or a full filesystem at start: one clear line naming the directory and
// the reason, exit 1, and nothing half-written — once the disk has room again the host starts
// and its database is intact. Uses small tmpfs mounts (the test machines run as root).

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const fn of cleanups.splice(0).reverse()) fn();
});

function mountTmpfs(options: string): string {
  const dir = makeTempDir();
  const mountPoint = join(dir.path, "mnt");
  mkdirSync(mountPoint);
  execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", mountPoint]);
  cleanups.push(() => {
    execFileSync("umount", [mountPoint]);
    dir.remove();
  });
  return mountPoint;
}

function spawnHost(dataDir: string): SpawnedProcess {
  const host = spawnApp("host", {
    ROUTER_URL: "ws://127.0.0.1:9/ws/node", // nothing listens: the host just keeps reconnecting
    ROUTER_SECRET: "s",
    NODE_ID: "home-pc",
    WORKING_DIR: "/tmp",
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
  });
  cleanups.push(() => host.kill("SIGKILL"));
  return host;
}

describe("DATA_DIR faults at start", () => {
  it.each(["host", "router"] as const)(
    "read-only DATA_DIR: the %s exits 1 with a clear error",
    async (app) => {
      const readOnly = mountTmpfs("ro,size=1m");
      const child = spawnApp(app, {
        ROUTER_URL: "ws://127.0.0.1:9/ws/node",
        ROUTER_SECRET: "s",
        ROUTER_PORT: "0",
        ROUTER_HOST: "127.0.0.1",
        DATA_DIR: readOnly,
        WORKING_DIR: "/tmp",
      });
      cleanups.push(() => child.kill("SIGKILL"));
      expect((await child.exited).code).toBe(1);
      expect(child.stderr()).toMatch(
        new RegExp(
          `^phonework: DATA_DIR ${readOnly} is not usable \\(EROFS\\); fix it or point DATA_DIR elsewhere\\n$`,
        ),
      );
    },
  );

  it("full disk: a clear error and exit 1; with room again the host starts and its database is intact", async () => {
    const disk = mountTmpfs("size=2m");
    const dataDir = join(disk, "state");
    const first = spawnHost(dataDir);
    await first.waitForStderr(/router link closed; reconnecting/);
    first.kill("SIGTERM");
    await first.exited;
    const dbPath = join(dataDir, "host", "home-pc", "state.db");
    const db = new Database(dbPath);
    db.prepare(
      'INSERT INTO outbox (delivery_id, frame, created_at) VALUES (\'kept\', \'{"type":"notify","user_id":"u","text":"kept"}\', 1)',
    ).run();
    db.close();

    // Fill the disk to the last byte.
    const filler = join(disk, "filler");
    try {
      writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
    } catch {
      // ENOSPC: as full as it gets
    }
    const second = spawnHost(dataDir);
    expect((await second.exited).code).toBe(1);
    expect(second.stderr()).toMatch(
      /^phonework: DATA_DIR .+ is not usable \(ENOSPC\); fix it or point DATA_DIR elsewhere\n$/,
    );

    rmSync(filler);
    const third = spawnHost(dataDir);
    await third.waitForStderr(/router link closed; reconnecting/);
    third.kill("SIGTERM");
    await third.exited;
    const check = new Database(dbPath, { readonly: true });
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(check.prepare("SELECT delivery_id FROM outbox").pluck().all()).toEqual(["kept"]);
    check.close();
  });
});
