import { createPublicKey, verify } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CURRENT_PROTOCOL_VERSION,
  decodeFrame,
  Frame,
  HostFrame,
  nodeAuthPayload,
  RouterFrame,
} from "../src/index.ts";

const fixturesRoot = join(import.meta.dirname, "..", "fixtures");
const versions = readdirSync(fixturesRoot)
  .map((dir) => Number(dir.replace(/^v/, "")))
  .sort();
const sample = (version: number, type: string) =>
  JSON.parse(readFileSync(join(fixturesRoot, `v${version}`, `${type}.json`), "utf8"));

describe("protocol fixtures", () => {
  it("keeps the samples of every version, the current one included", () => {
    expect(versions).toContain(CURRENT_PROTOCOL_VERSION);
    expect(versions).toContain(1);
  });

  it(`v${CURRENT_PROTOCOL_VERSION}: every frame type has a sample`, () => {
    const dir = join(fixturesRoot, `v${CURRENT_PROTOCOL_VERSION}`);
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    const types = Frame.options.map((o) => o.shape.type.value).sort();
    expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual(types);
  });

  for (const version of versions) {
    const dir = join(fixturesRoot, `v${version}`);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      // Older samples still parse: frames only gained optional fields and new types since.
      it(`v${version}: ${file} parses and round-trips`, () => {
        const raw = readFileSync(join(dir, file), "utf8");
        const decoded = decodeFrame(raw, Frame);
        expect(decoded).toMatchObject({ ok: true });
        if (!decoded.ok) return;
        expect(decoded.frame.type).toBe(file.replace(/\.json$/, ""));
        // A parsed sample re-encodes to the same data: nothing is dropped or invented.
        expect(decoded.frame).toEqual(JSON.parse(raw));
      });
    }
  }

  it("v2: the sample register's signature verifies against the sample challenge's nonce", () => {
    const challenge = sample(2, "challenge");
    const register = sample(2, "register");
    const payload = nodeAuthPayload(challenge.nonce, register.node_id, register.auth.public_key);
    const key = createPublicKey({
      key: Buffer.from(register.auth.public_key, "base64"),
      format: "der",
      type: "spki",
    });
    expect(verify(null, Buffer.from(payload), key, Buffer.from(register.auth.signature, "base64"))).toBe(
      true,
    );
    expect(
      verify(null, Buffer.from(`${payload}x`), key, Buffer.from(register.auth.signature, "base64")),
    ).toBe(false);
  });

  it("direction unions split the frames with only `error` in both", () => {
    const host: string[] = HostFrame.options.map((o) => o.shape.type.value);
    const router: string[] = RouterFrame.options.map((o) => o.shape.type.value);
    expect(host.filter((t) => router.includes(t))).toEqual(["error"]);
    expect(new Set([...host, ...router]).size).toBe(Frame.options.length);
  });
});
