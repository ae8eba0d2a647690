import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/index.ts";

// Every key once per line. Checked on the raw text, since JSON.parse would hide a duplicate.

function capture() {
  const lines: string[] = [];
  let pending = "";
  const destination = new Writable({
    write(chunk, _encoding, done) {
      pending += chunk.toString();
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      lines.push(...parts);
      done();
    },
  });
  return { logger: createLogger({ level: "debug", destination, name: "phonework" }), lines };
}

/** The keys of a flat JSON line, as written (a duplicate shows up twice). */
function keysAsWritten(line: string): string[] {
  return [...line.matchAll(/[{,]"([^"\\]+)":/g)].map((match) => match[1] ?? "");
}

function expectEachKeyOnce(line: string): void {
  const keys = keysAsWritten(line);
  expect(keys, line).toEqual([...new Set(keys)]);
}

describe("one occurrence of each key", () => {
  it("a sub-component's child replaces its parent's component", () => {
    const { logger, lines } = capture();
    const router = logger.child({ component: "router" });
    router.child({ component: "chat" }).info("chat started");
    router.child({ component: "nodes" }).child({ nodeId: "home-pc" }).info("node registered");
    router.info("router listening");

    for (const line of lines) expectEachKeyOnce(line);
    expect(lines.map((line) => JSON.parse(line).component)).toEqual(["chat", "nodes", "router"]);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ name: "phonework", nodeId: "home-pc" });
  });

  it("keeps the order keys were first bound in, with the innermost value", () => {
    const { logger, lines } = capture();
    logger.child({ component: "host", nodeId: "a" }).child({ component: "link" }).warn("closed");
    expect(keysAsWritten(lines[0] ?? "")).toEqual([
      "level",
      "time",
      "pid",
      "hostname",
      "name",
      "component",
      "nodeId",
      "msg",
    ]);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ component: "link", nodeId: "a" });
  });

  it("a call's field that its logger already binds is written once, with the call's value", () => {
    const { logger, lines } = capture();
    const node = logger.child({ component: "nodes", nodeId: "home-pc" });
    node.info({ nodeId: "work-pc", reason: "replaced" }, "node refused");
    logger.info({ name: "a file name", level: "high" }, "odd field names");
    node.info({ reason: "none" }, "nothing repeated");

    for (const line of lines) expectEachKeyOnce(line);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ nodeId: "work-pc", reason: "replaced" });
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ name: "a file name", level: "high" });
    expect(JSON.parse(lines[2] ?? "")).toMatchObject({ nodeId: "home-pc", reason: "none" });
  });

  it("a child made with options (fastify's request loggers) is deduplicated too", () => {
    const { logger, lines } = capture();
    const http = logger.child({ component: "http" });
    http.child({ component: "request", reqId: "req-1" }, { level: "debug" }).debug("incoming request");
    expectEachKeyOnce(lines[0] ?? "");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ component: "request", reqId: "req-1" });
  });
});
