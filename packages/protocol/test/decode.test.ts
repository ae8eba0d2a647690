import { describe, expect, it } from "vitest";
import { decodeFrame, HostFrame, negotiateVersion, RouterFrame } from "../src/index.ts";

describe("decodeFrame", () => {
  it("rejects non-JSON with BAD_FRAME", () => {
    expect(decodeFrame("{nope", HostFrame)).toEqual({
      ok: false,
      code: "BAD_FRAME",
      message: "frame is not valid JSON",
    });
  });

  it("rejects arrays, scalars and objects without a type", () => {
    for (const raw of ["[]", "42", "null", '"x"', "{}", '{"type":7}']) {
      const result = decodeFrame(raw, HostFrame);
      expect(result.ok, raw).toBe(false);
    }
  });

  it("names an unknown frame type", () => {
    expect(decodeFrame('{"type":"launch_missiles"}', HostFrame)).toMatchObject({
      ok: false,
      message: "unknown frame type 'launch_missiles'",
    });
  });

  it("treats a frame of the other direction as unknown", () => {
    const forward = '{"type":"forward","id":"1","user_id":"u","chat_id":"c","platform":"t","text":"hi"}';
    expect(decodeFrame(forward, RouterFrame).ok).toBe(true);
    expect(decodeFrame(forward, HostFrame)).toMatchObject({
      ok: false,
      message: "unknown frame type 'forward'",
    });
  });

  it("names the bad field of a known frame", () => {
    const result = decodeFrame('{"type":"forward_response","id":"","text":"x"}', HostFrame);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^invalid 'forward_response' frame: id:/);
  });

  it("ignores unknown extra fields (additive changes within a version)", () => {
    const result = decodeFrame('{"type":"pong","ts":1,"added_later":true}', HostFrame);
    expect(result).toEqual({ ok: true, frame: { type: "pong", ts: 1 } });
  });
});

describe("negotiateVersion", () => {
  it("picks the highest common version", () => {
    expect(negotiateVersion([1, 2, 3], [1, 2])).toBe(2);
  });
  it("returns undefined with no common version", () => {
    expect(negotiateVersion([7], [1])).toBeUndefined();
  });
});
