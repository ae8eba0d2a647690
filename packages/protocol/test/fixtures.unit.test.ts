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
/** Frames the host sends through its outbox: each carries a delivery id. */
const deliverable = new Set(["forward_response", "notify", "task_complete", "send_file", "worker_result"]);
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
      const raw = readFileSync(join(dir, file), "utf8");
      // v3 made `delivery_id` required on deliverable frames: older ones without it are refused
      // (a router refuses older hosts at the handshake anyway).
      if (deliverable.has(file.replace(/\.json$/, "")) && !("delivery_id" in JSON.parse(raw))) {
        it(`v${version}: ${file} is refused without a delivery_id`, () => {
          expect(version).toBeLessThan(3);
          expect(decodeFrame(raw, Frame)).toMatchObject({ ok: false, code: "BAD_FRAME" });
        });
        continue;
      }
      // Other older samples still parse: frames only gained fields and new types since.
      it(`v${version}: ${file} parses and round-trips`, () => {
        const decoded = decodeFrame(raw, Frame);
        expect(decoded).toMatchObject({ ok: true });
        if (!decoded.ok) return;
        expect(decoded.frame.type).toBe(file.replace(/\.json$/, ""));
        // A parsed sample re-encodes to the same data: nothing is dropped or invented.
        expect(decoded.frame).toEqual(JSON.parse(raw));
      });
    }
  }

  it(`v${CURRENT_PROTOCOL_VERSION}: the sample register's signature verifies against the sample challenge's nonce`, () => {
    const challenge = sample(CURRENT_PROTOCOL_VERSION, "challenge");
    const register = sample(CURRENT_PROTOCOL_VERSION, "register");
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

  it("direction unions split the frames with only `error` and the relayed worker frames in both", () => {
    const host: string[] = HostFrame.options.map((o) => o.shape.type.value);
    const router: string[] = RouterFrame.options.map((o) => o.shape.type.value);
    expect(host.filter((t) => router.includes(t)).sort()).toEqual([
      "error",
      "worker_cancel",
      "worker_result",
      "worker_status",
      "worker_task",
    ]);
    expect(new Set([...host, ...router]).size).toBe(Frame.options.length);
  });
});
