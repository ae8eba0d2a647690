import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CleanupScope, captureStream } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { openProgramLog, type ProgramLogOptions, SecretValues } from "../src/index.ts";

// Where a program's log goes. With the terminal as the chat: everything to DATA_DIR/logs/<name>.log,
// warnings and errors to stderr; secrets cut out of both, whatever their format.

const scope = new CleanupScope();
afterEach(() => scope.run());

const ROUTER_SECRET = "router-secret-3b9d0a";
const QUOTED_SECRET = 'pa"ss\\word-123';

const captureStderr = captureStream;

async function open(options: Partial<ProgramLogOptions> & { tty?: boolean; toFile?: boolean } = {}) {
  const dataDir = scope.tempDir();
  const stderr = captureStderr(options.tty ?? false);
  const { tty: _tty, toFile = true, ...rest } = options;
  const log = await openProgramLog({
    name: "phonework",
    level: "info",
    format: "auto",
    secrets: new SecretValues([ROUTER_SECRET, QUOTED_SECRET]),
    stderr: stderr.stream,
    ...(toFile ? { file: { dataDir } } : {}),
    ...rest,
  });
  const path = join(dataDir, "logs", "phonework.log");
  return {
    ...log,
    path,
    stderr: stderr.output,
    fileText: () => (existsSync(path) ? readFileSync(path, "utf8") : ""),
    fileLines: () =>
      readFileSync(path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** A few lines at every level that matters, two carrying secrets where no redact path looks. */
function logSome(logger: import("../src/index.ts").Logger): void {
  logger.debug("below the level");
  logger.info({ nodeId: "home-pc" }, "node registered");
  logger.warn({ detail: `config ${ROUTER_SECRET}` }, "slow node");
  logger.error(new Error(`request failed: ${QUOTED_SECRET}`), "send failed");
}

describe("openProgramLog with the terminal as the chat", () => {
  it("the file gets the whole log as JSON, stderr only warnings and errors", async () => {
    const log = await open();
    logSome(log.logger);

    expect(log.file).toBe(log.path);
    expect(log.fileLines().map((line) => [line.level, line.msg])).toEqual([
      [30, `logging to ${log.path}`],
      [30, "node registered"],
      [40, "slow node"],
      [50, "send failed"],
    ]);
    const stderrLines = log.stderr().trimEnd().split("\n");
    expect(stderrLines.map((line) => JSON.parse(line).msg)).toEqual(["slow node", "send failed"]);
  });

  it("redacts secret values in the file and on stderr", async () => {
    const log = await open();
    logSome(log.logger);
    for (const text of [log.fileText(), log.stderr()]) {
      expect(text).toContain("[redacted]");
      for (const secret of [ROUTER_SECRET, QUOTED_SECRET, JSON.stringify(QUOTED_SECRET).slice(1, -1)])
        expect(text).not.toContain(secret);
    }
  });

  it("a terminal's stderr shows pretty text, still redacted; the file stays JSON", async () => {
    const log = await open({ tty: true });
    logSome(log.logger);

    expect(log.stderr()).toMatch(/WARN.*\(phonework\): slow node/);
    expect(log.stderr()).toMatch(/ERROR.*\(phonework\): send failed/);
    expect(log.stderr()).not.toContain("node registered");
    expect(log.stderr()).toContain("[redacted]");
    for (const secret of [ROUTER_SECRET, QUOTED_SECRET]) expect(log.stderr()).not.toContain(secret);
    expect(log.fileLines()).toHaveLength(4);
  });

  it("LOG_FORMAT=pretty makes the file text too, uncoloured and redacted", async () => {
    const log = await open({ format: "pretty" });
    logSome(log.logger);
    const text = log.fileText();
    expect(text).toMatch(/INFO.*\(phonework\): node registered\n {4}nodeId: "home-pc"/);
    expect(text).not.toContain("\u001b[");
    expect(text).toContain("[redacted]");
    for (const secret of [ROUTER_SECRET, QUOTED_SECRET]) expect(text).not.toContain(secret);
  });

  it("LOG_FORMAT=json keeps a terminal's stderr JSON", async () => {
    const log = await open({ tty: true, format: "json" });
    log.logger.warn("slow node");
    expect(JSON.parse(log.stderr())).toMatchObject({ level: 40, msg: "slow node" });
  });

  it("stderrLevel lets more through to stderr (a redirected stderr keeps the whole log)", async () => {
    const dataDir = scope.tempDir();
    const stderr = captureStderr(false);
    const { logger } = await openProgramLog({
      name: "phonework",
      level: "info",
      format: "auto",
      secrets: new SecretValues(),
      stderr: stderr.stream,
      file: { dataDir, stderrLevel: "trace" },
    });
    logger.info("node registered");
    expect(stderr.output()).toMatch(/"msg":"logging to .*\n.*"msg":"node registered"/);
    expect(readFileSync(join(dataDir, "logs", "phonework.log"), "utf8")).toContain('"msg":"node registered"');
  });

  it("a level raised later (SIGHUP) reaches the file", async () => {
    const log = await open();
    log.logger.level = "debug";
    log.logger.debug("now heard");
    expect(log.fileLines().at(-1)).toMatchObject({ level: 20, msg: "now heard" });
    expect(log.stderr()).toBe("");
  });
});

describe("openProgramLog without the terminal chat", () => {
  it("logs everything at its level to stderr and creates no file", async () => {
    const log = await open({ toFile: false });
    logSome(log.logger);
    expect(log.file).toBeUndefined();
    expect(existsSync(log.path)).toBe(false);
    const stderrLines = log.stderr().trimEnd().split("\n");
    expect(stderrLines.map((line) => JSON.parse(line).msg)).toEqual([
      "node registered",
      "slow node",
      "send failed",
    ]);
    expect(log.stderr()).not.toContain(ROUTER_SECRET);
  });
});
