import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { CleanupScope, waitFor } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openLogFile } from "../src/index.ts";

// DATA_DIR/logs/<name>.log: private, appended to across runs, rotated by size with a few files kept.

const scope = new CleanupScope();
afterEach(() => scope.run());

const noErrors = (error: Error) => {
  throw error;
};

/** The numbered log files, oldest first. */
function numbered(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /^phonework\.\d+\.log$/.test(name))
    .sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1]));
}

describe("openLogFile", () => {
  it("writes <name>.log (a link to the numbered file), 0600 in a 0700 directory", async () => {
    const dir = join(scope.tempDir(), "logs");
    const log = await openLogFile(dir, "phonework", { onError: noErrors });
    scope.add(() => log.stream.end());
    log.stream.write('{"msg":"first"}\n');

    expect(log.path).toBe(join(dir, "phonework.log"));
    expect(readlinkSync(log.path)).toBe("phonework.1.log");
    expect(readFileSync(log.path, "utf8")).toBe('{"msg":"first"}\n');
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("appends to the last run's file, and makes a file left 0644 private", async () => {
    const dir = join(scope.tempDir(), "logs");
    const first = await openLogFile(dir, "phonework", { onError: noErrors });
    first.stream.write('{"msg":"run 1"}\n');
    first.stream.end();
    writeFileSync(join(dir, "phonework.1.log"), '{"msg":"run 1"}\n', { mode: 0o644 });

    const second = await openLogFile(dir, "phonework", { onError: noErrors });
    scope.add(() => second.stream.end());
    second.stream.write('{"msg":"run 2"}\n');
    expect(readFileSync(second.path, "utf8")).toBe('{"msg":"run 1"}\n{"msg":"run 2"}\n');
    expect(statSync(second.path).mode & 0o777).toBe(0o600);
  });

  it("rotates at the size given, keeps that many files, and the link follows the newest", async () => {
    const dir = join(scope.tempDir(), "logs");
    // Files of earlier runs count among the files kept: the oldest goes first.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "phonework.1.log"), '{"msg":"two runs ago"}\n');
    writeFileSync(join(dir, "phonework.2.log"), '{"msg":"last run"}\n');
    const log = await openLogFile(dir, "phonework", {
      rotation: { size: "1k", files: 2 },
      onError: noErrors,
    });
    expect(readlinkSync(log.path)).toBe("phonework.2.log");
    scope.add(() => log.stream.end());
    const line = `${JSON.stringify({ msg: "x".repeat(200) })}\n`;
    for (let i = 0; i < 30; i++) log.stream.write(line);
    await waitFor(() => numbered(dir).length === 2 && Number(numbered(dir)[1]?.split(".")[1]) >= 4, {
      message: `rotations down to two files (have ${readdirSync(dir).join(", ")})`,
    });

    const [older, newest] = numbered(dir);
    expect(older).not.toBe("phonework.1.log");
    expect(readlinkSync(join(dir, "phonework.log"))).toBe(newest);
    for (const name of [older, newest]) {
      const stat = lstatSync(join(dir, name ?? ""));
      expect(stat.mode & 0o777, name).toBe(0o600);
      expect(stat.size, name).toBeLessThan(1024 + line.length);
    }
  });

  it("leaves the numbered files of another program in the same directory alone", async () => {
    const dir = join(scope.tempDir(), "logs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "phonework-router.7.log"), '{"msg":"router"}\n');
    const log = await openLogFile(dir, "phonework", {
      rotation: { size: "1k", files: 1 },
      onError: noErrors,
    });
    scope.add(() => log.stream.end());
    expect(readlinkSync(log.path)).toBe("phonework.1.log");
    const line = `${JSON.stringify({ msg: "x".repeat(600) })}\n`;
    for (let i = 0; i < 4; i++) log.stream.write(line);

    expect(numbered(dir)).toEqual(["phonework.3.log"]);
    expect(readFileSync(join(dir, "phonework-router.7.log"), "utf8")).toBe('{"msg":"router"}\n');
  });
});
