import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { CleanupScope, captureStream } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { chooseFormat, createLogger, isTerminal, logFormat } from "../src/index.ts";

// LOG_FORMAT: `auto` is pretty on a terminal and JSON anywhere else; `pretty` and `json` say so
// for every destination.

const scope = new CleanupScope();
afterEach(() => scope.run());

const capture = captureStream;

describe("chooseFormat", () => {
  it("auto follows the destination; pretty and json override it", () => {
    expect([
      chooseFormat("auto", true),
      chooseFormat("auto", false),
      chooseFormat("pretty", false),
      chooseFormat("json", true),
    ]).toEqual(["pretty", "json", "pretty", "json"]);
  });
});

describe("isTerminal", () => {
  it("asks a stream its isTTY and a file descriptor the OS", () => {
    expect([isTerminal(capture(true).stream), isTerminal(capture(false).stream)]).toEqual([true, false]);
    const fd = openSync(join(scope.tempDir(), "plain-file"), "w");
    scope.add(() => closeSync(fd));
    expect(isTerminal(fd)).toBe(false);
  });
});

describe("createLogger formats", () => {
  it("auto: human-readable text on a terminal", () => {
    const { stream, output } = capture(true);
    createLogger({ level: "info", destination: stream, name: "phonework" }).warn(
      { nodeId: "home-pc" },
      "node slow",
    );
    expect(output()).toMatch(/WARN.*\(phonework\): node slow/);
    expect(output()).toContain('nodeId: "home-pc"');
    expect(output().trimStart().startsWith("{")).toBe(false);
  });

  it("auto: one JSON object per line anywhere else", () => {
    const { stream, output } = capture(false);
    createLogger({ level: "info", destination: stream }).info({ nodeId: "home-pc" }, "node registered");
    expect(JSON.parse(output())).toMatchObject({ level: 30, nodeId: "home-pc", msg: "node registered" });
  });

  it("json on a terminal, pretty into a pipe, when asked", () => {
    const tty = capture(true);
    createLogger({ level: "info", destination: tty.stream, format: "json" }).info("as json");
    expect(JSON.parse(tty.output())).toMatchObject({ msg: "as json" });

    const pipe = capture(false);
    createLogger({ level: "info", destination: pipe.stream, format: "pretty" }).info("as text");
    expect(pipe.output()).toMatch(/INFO.*: as text\n$/);
    // Colours are for terminals only.
    expect(pipe.output()).not.toContain("\u001b[");
  });
});

describe("LOG_FORMAT", () => {
  it("is auto by default and refuses anything but auto, pretty or json", () => {
    expect(logFormat().parse(undefined)).toBe("auto");
    expect(logFormat().parse("json")).toBe("json");
    const result = logFormat().safeParse("yaml");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("must be one of auto, pretty, json");
  });
});
