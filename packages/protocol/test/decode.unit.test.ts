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

  it("reads a probe register and a challenge's features; both optional, so older peers still parse", () => {
    const register = (extra: string) =>
      `{"type":"register","node_id":"pc","display_name":"pc","serves_users":[],"working_dir":"",` +
      `"capabilities":[],"protocol_versions":[3]${extra}}`;
    expect(decodeFrame(register(',"probe":true'), HostFrame)).toMatchObject({
      ok: true,
      frame: { probe: true },
    });
    expect(decodeFrame(register(""), HostFrame)).toMatchObject({ ok: true, frame: { type: "register" } });
    expect(decodeFrame(register(',"probe":"yes"'), HostFrame)).toMatchObject({
      ok: false,
      code: "BAD_FRAME",
    });
    const challenge = (extra: string) =>
      `{"type":"challenge","nonce":"0123456789abcdef0123","protocol_versions":[3]${extra}}`;
    expect(decodeFrame(challenge(',"features":["probe","later"]'), RouterFrame)).toMatchObject({
      ok: true,
      frame: { features: ["probe", "later"] },
    });
    expect(decodeFrame(challenge(""), RouterFrame)).toMatchObject({ ok: true });
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
