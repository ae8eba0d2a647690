import { ConfigError } from "@phonework/runtime";
import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { reloadLogLevel } from "../src/program/reload-log-level.ts";

describe("reloadLogLevel (SIGHUP)", () => {
  it("applies the new level to the logger and to the children made before it, and says so once", () => {
    const { logger, lines } = createTestLogger("info");
    const child = logger.child({ component: "router" });
    child.debug("before");
    reloadLogLevel(() => ({ LOG_LEVEL: "debug" }), logger);
    child.debug("after");
    expect(lines().map((line) => [line.level, line.msg])).toEqual([
      [30, "SIGHUP: log level now debug"],
      [20, "after"],
    ]);
    expect(lines()[0]).toMatchObject({ from: "info", to: "debug" });
  });

  it("lowering to warn is still announced (before the switch); raising from warn, after it", () => {
    const { logger, lines } = createTestLogger("info");
    reloadLogLevel(() => ({ LOG_LEVEL: "warn" }), logger);
    logger.info("hidden");
    reloadLogLevel(() => ({ LOG_LEVEL: "info" }), logger);
    expect(lines().map((line) => line.msg)).toEqual([
      "SIGHUP: log level now warn",
      "SIGHUP: log level now info",
    ]);
  });

  it("a config that no longer validates: one warning naming the problem, the level unchanged", () => {
    const { logger, lines } = createTestLogger("info");
    reloadLogLevel(() => {
      throw new ConfigError("invalid configuration:\n  LOG_LEVEL: must be one of fatal, error, warn");
    }, logger);
    expect(logger.level).toBe("info");
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "SIGHUP: config not reloaded; the log level stays as it was",
        problem: expect.stringContaining("LOG_LEVEL: must be one of"),
        logLevel: "info",
      }),
    ]);
  });
});
