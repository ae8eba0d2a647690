import { ConfigError } from "@phonework/runtime";
import { describe, expect, it } from "vitest";
import { qualify, qualifyAll } from "../src/config/qualify-ids.ts";
import { isQualified, qualifyId, splitQualified } from "../src/ids/qualified-id.ts";

// Ids qualified by their adapter's name: only the part before the first ":" is the adapter, and only
// when it is one.

const two = ["feishu", "telegram"];

describe("splitQualified", () => {
  it("splits at the first colon only: the platform's id keeps its own colons", () => {
    expect(splitQualified("telegram:123")).toEqual({ adapter: "telegram", id: "123" });
    expect(splitQualified("telegram:-1001234")).toEqual({ adapter: "telegram", id: "-1001234" });
    expect(splitQualified("feishu:ou_abc")).toEqual({ adapter: "feishu", id: "ou_abc" });
    expect(splitQualified("matrix:@bob:example.org")).toEqual({ adapter: "matrix", id: "@bob:example.org" });
  });

  it("with adapter names, only those are adapters", () => {
    expect(splitQualified("telegram:1", two)).toEqual({ adapter: "telegram", id: "1" });
    expect(splitQualified("slack:U1", two)).toBeUndefined();
    expect(isQualified("slack:U1", two)).toBe(false);
    expect(isQualified("feishu:ou_a", two)).toBe(true);
  });

  it("a bare id, or a prefix no adapter could be named, is not qualified", () => {
    for (const id of ["123", "-1001234", "ou_abc", "@bob:example.org", "Bad:1", ":x"])
      expect(splitQualified(id), id).toBeUndefined();
  });
});

describe("qualifyId", () => {
  it("gives a bare id the only adapter's name, negative numbers and underscores included", () => {
    expect(qualifyId("-1001234", ["telegram"])).toEqual({ ok: true, id: "telegram:-1001234" });
    expect(qualifyId("ou_abc", ["feishu"])).toEqual({ ok: true, id: "feishu:ou_abc" });
    // Its own colons do not make it qualified when the part before them names no adapter.
    expect(qualifyId("@bob:example.org", ["matrix"])).toEqual({ ok: true, id: "matrix:@bob:example.org" });
  });

  it("keeps an id already qualified by a known adapter, or by the terminal", () => {
    expect(qualifyId("telegram:-1001234", two)).toEqual({ ok: true, id: "telegram:-1001234" });
    expect(qualifyId("feishu:a:b", two)).toEqual({ ok: true, id: "feishu:a:b" });
    expect(qualifyId("terminal:local", two)).toEqual({ ok: true, id: "terminal:local" });
  });

  it("refuses a bare id when there are several adapters, saying how to write it", () => {
    expect(qualifyId("ou_abc", two)).toEqual({
      ok: false,
      reason:
        '"ou_abc" is ambiguous with several chat adapters (feishu, telegram); write feishu:ou_abc or telegram:ou_abc',
    });
    expect(qualifyId("7", ["a", "b", "c"])).toMatchObject({
      reason: expect.stringMatching(/write a:7, b:7 or c:7$/),
    });
  });

  it("refuses an id naming an adapter that does not exist", () => {
    const result = qualifyId("slack:U1", two);
    expect(result).toEqual({
      ok: false,
      reason: expect.stringContaining('"slack:U1" names no chat adapter "slack"'),
    });
    expect(result).toMatchObject({ reason: expect.stringContaining("the adapters are feishu, telegram") });
    // Such an id meant literally is written after its adapter's name.
    expect(result).toMatchObject({ reason: expect.stringContaining("feishu:slack:U1") });
  });

  it("refuses an empty id after the adapter, and a bare id with no adapter at all", () => {
    expect(qualifyId("telegram:", two)).toEqual({
      ok: false,
      reason: '"telegram:" has no id after "telegram:"',
    });
    expect(qualifyId("ou_abc", [])).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/none is configured/),
    });
  });
});

describe("qualify / qualifyAll", () => {
  it("qualify throws a ConfigError naming the key, worded like the loader", () => {
    expect(qualify("123", ["telegram"], "SERVES_USERS")).toBe("telegram:123");
    const attempt = () => qualify("ou_abc", two, "SERVES_USERS");
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(
      'invalid configuration:\n  SERVES_USERS: "ou_abc" is ambiguous with several chat adapters (feishu, telegram); ' +
        "write feishu:ou_abc or telegram:ou_abc",
    );
  });

  it("qualifyAll keeps the good ids in order and names the key in each problem", () => {
    expect(qualifyAll(["telegram:1", "x", "feishu:ou_a", "nope:2"], two, "ALLOWED_USERS")).toEqual({
      ids: ["telegram:1", "feishu:ou_a"],
      issues: [
        { key: "ALLOWED_USERS", message: expect.stringContaining('"x" is ambiguous') },
        { key: "ALLOWED_USERS", message: expect.stringContaining('"nope:2" names no chat adapter "nope"') },
      ],
    });
  });
});
