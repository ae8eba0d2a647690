import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CleanupScope, type SpawnedProcess, spawnApp } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";

// With the terminal as the chat, the log goes to DATA_DIR/logs/<app>.log and the terminal keeps
// the chat: real processes, piped input, stdout and stderr read apart.

const SECRET = "terminal-logs-secret-5f1c9e";
const scope = new CleanupScope();
afterEach(() => scope.run());

/** Whatever the shell running the tests has set: these runs decide for themselves. */
const UNSET = { LOG_LEVEL: undefined, LOG_FORMAT: undefined, PHONEWORK_CONFIG: undefined, CHAT: undefined };

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function answerThenExit(child: SpawnedProcess): Promise<void> {
  child.writeLine("/nodes");
  child.endInput();
  expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
}

describe("logs beside the terminal chat (real processes)", () => {
  it("pnpm standalone: stdout is the chat alone, the JSON log is in DATA_DIR/logs/phonework.log (0600)", async () => {
    const dataDir = scope.tempDir();
    const child = scope.track(
      spawnApp("standalone", {
        ...UNSET,
        DATA_DIR: dataDir,
        WORKING_DIR: scope.tempDir(),
        NODE_ID: "my-box",
        ROUTER_SECRET: SECRET,
      }),
    );
    await answerThenExit(child);

    const stdout = child.stdout();
    expect(stdout).toMatch(/^→ my-box\s+\[ACTIVE\]/m);
    for (const line of stdout.split("\n")) expect(line.trimStart().startsWith("{"), line).toBe(false);

    const path = join(dataDir, "logs", "phonework.log");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "logs")).mode & 0o777).toBe(0o700);
    const text = readFileSync(path, "utf8");
    const log = jsonLines(text);
    expect(log[0]).toMatchObject({ level: 30, name: "phonework", file: path });
    expect(log.map((line) => line.msg)).toEqual(
      expect.arrayContaining(["router listening", "node registered", "standalone ready"]),
    );
    // The ready line names the working folder and the data folder.
    expect(log.find((line) => line.msg === "standalone ready")).toMatchObject({
      dataDir,
      workingDir: expect.any(String),
    });
    expect(text).not.toContain(SECRET);

    // The terminal shows warnings and errors only: none here, and none of the info lines.
    for (const line of jsonLines(child.stderr())) expect(line.level as number).toBeGreaterThanOrEqual(40);
    expect(child.stderr()).not.toContain("standalone ready");
  });

  it("pnpm router with CHAT=terminal: the log goes to logs/phonework-router.log; a redirected stderr keeps it too", async () => {
    const dataDir = scope.tempDir();
    const router = scope.track(
      spawnApp("router", {
        ...UNSET,
        CHAT: "terminal",
        DATA_DIR: dataDir,
        ROUTER_SECRET: SECRET,
        ROUTER_HOST: "127.0.0.1",
        ROUTER_PORT: "0",
        FEISHU_APP_ID: undefined,
        FEISHU_APP_SECRET: undefined,
      }),
    );
    await answerThenExit(router);

    expect(router.stdout()).toContain("No nodes are serving you yet.");
    expect(router.stdout()).not.toContain('"msg"');
    const path = join(dataDir, "logs", "phonework-router.log");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const inFile = jsonLines(readFileSync(path, "utf8")).map((line) => line.msg);
    expect(inFile).toEqual(expect.arrayContaining(["router listening", "stopping router"]));
    // stderr here is a pipe, not the terminal beside the chat: scripts and supervisors still read it.
    expect(jsonLines(router.stderr()).map((line) => line.msg)).toEqual(
      expect.arrayContaining(["router listening", "stopping router"]),
    );
  });
});
