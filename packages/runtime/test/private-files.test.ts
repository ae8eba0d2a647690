import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@phonework/testkit";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensurePrivateDir,
  ensureWritableDir,
  openDatabase,
  writeJsonFileAtomic,
  writePrivateFile,
} from "../src/index.ts";

// Owner-only state under DATA_DIR with the usual umask 022, which would otherwise leave
// files 0644 and directories 0755.

const dir = makeTempDir();
afterAll(() => dir.remove());

let savedUmask = 0;
beforeEach(() => {
  savedUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(savedUmask);
});

const modeOf = (path: string) => statSync(path).mode & 0o777;
const MIGRATIONS = ["CREATE TABLE items (id INTEGER PRIMARY KEY, output TEXT NOT NULL)"];

describe("ensurePrivateDir", () => {
  it("makes every directory of a nested path it creates 0700", () => {
    const base = join(dir.path, "nested-case");
    mkdirSync(base, { mode: 0o755 });
    ensurePrivateDir(join(base, "a", "b", "c"));
    expect([base, join(base, "a"), join(base, "a", "b"), join(base, "a", "b", "c")].map(modeOf)).toEqual([
      0o755, // an existing parent is not ours to change
      0o700,
      0o700,
      0o700,
    ]);
  });

  it("tightens the directory it is given when an older version made it 0755", () => {
    const old = join(dir.path, "old-data-dir");
    mkdirSync(old);
    chmodSync(old, 0o755);
    ensurePrivateDir(old);
    expect(modeOf(old)).toBe(0o700);
  });
});

describe("writePrivateFile", () => {
  it("writes 0600 into a 0700 directory, also over an existing 0644 file", () => {
    const path = join(dir.path, "files", "report.txt");
    writePrivateFile(path, "one");
    expect([modeOf(path), modeOf(join(dir.path, "files"))]).toEqual([0o600, 0o700]);
    chmodSync(path, 0o644);
    writePrivateFile(path, Buffer.from("two"));
    expect(modeOf(path)).toBe(0o600);
  });
});

describe("openDatabase", () => {
  it("creates the database, its WAL and its shared-memory file 0600 in a 0700 directory", () => {
    const path = join(dir.path, "host", "home-pc", "state.db");
    const db = openDatabase(path, { migrations: MIGRATIONS });
    db.prepare("INSERT INTO items (output) VALUES (?)").run("command output");
    expect([path, `${path}-wal`, `${path}-shm`].map(modeOf)).toEqual([0o600, 0o600, 0o600]);
    expect([join(dir.path, "host"), join(dir.path, "host", "home-pc")].map(modeOf)).toEqual([0o700, 0o700]);
    db.close();
  });

  it("tightens a 0644 database and WAL left by an older version", () => {
    const data = join(dir.path, "upgrade");
    mkdirSync(data, { mode: 0o755 });
    const path = join(data, "router.db");
    writeFileSync(path, "");
    writeFileSync(`${path}-wal`, "");
    chmodSync(path, 0o644);
    chmodSync(`${path}-wal`, 0o644);
    const db = openDatabase(path, { migrations: MIGRATIONS });
    db.prepare("INSERT INTO items (output) VALUES (?)").run("x");
    expect([path, `${path}-wal`, `${path}-shm`, data].map(modeOf)).toEqual([0o600, 0o600, 0o600, 0o700]);
    db.close();
  });
});

describe("other DATA_DIR writers", () => {
  it("writeJsonFileAtomic makes its directory 0700 and its file 0600", () => {
    const path = join(dir.path, "router", "users.json");
    writeJsonFileAtomic(path, { users: {} });
    expect([modeOf(join(dir.path, "router")), modeOf(path)]).toEqual([0o700, 0o600]);
  });

  it("ensureWritableDir makes DATA_DIR 0700, also an existing 0755 one", () => {
    const fresh = join(dir.path, "fresh-data");
    ensureWritableDir(fresh);
    const existing = join(dir.path, "existing-data");
    mkdirSync(existing, { mode: 0o755 });
    ensureWritableDir(existing);
    expect([fresh, existing].map(modeOf)).toEqual([0o700, 0o700]);
  });
});
