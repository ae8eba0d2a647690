import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, formatAgo, formatDuration } from "../src/index.ts";

describe("createLogger", () => {
  it("redacts secrets wherever they appear", () => {
    let out = "";
    const destination = new Writable({
      write(chunk, _e, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = createLogger({ level: "info", destination });
    logger.info(
      {
        config: { ROUTER_SECRET: "hunter2", OPENAI_API_KEY: "sk-1" },
        headers: { authorization: "Bearer x" },
      },
      "x",
    );
    expect(out).not.toContain("hunter2");
    expect(out).not.toContain("sk-1");
    expect(out).not.toContain("Bearer x");
    expect(out).toContain("[redacted]");
  });
});

describe("formatDuration", () => {
  it("uses compact units", () => {
    expect(
      [0, 42_000, 47 * 60_000, 3 * 3_600_000, 3 * 3_600_000 + 5 * 60_000, 3 * 86_400_000].map(formatDuration),
    ).toEqual(["0s", "42s", "47m", "3h", "3h 5m", "3d"]);
  });
});

describe("formatAgo", () => {
  it("uses the same compact units, so 'online 3h' and 'last seen 5s ago' read alike", () => {
    expect([0, 5_000, 47 * 60_000, 3 * 3_600_000 + 5 * 60_000, 3 * 86_400_000].map(formatAgo)).toEqual([
      "0s ago",
      "5s ago",
      "47m ago",
      "3h 5m ago",
      "3d ago",
    ]);
  });
});
