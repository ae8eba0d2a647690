import { createPublicKey, verify } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CURRENT_PROTOCOL_VERSION,
  decodeFrame,
  ForwardFrame,
  Frame,
  HostFrame,
  nodeAuthPayload,
  ProgressFrame,
  RouterFrame,
} from "../src/index.ts";

const fixturesRoot = join(import.meta.dirname, "..", "fixtures");
const versions = readdirSync(fixturesRoot)
  .map((dir) => Number(dir.replace(/^v/, "")))
  .sort();
/** Frames the host sends through its outbox: each carries a delivery id. */
const deliverable = new Set(["forward_response", "notify", "task_complete", "send_file", "worker_result"]);
/** `progress.json`, and variants of one type such as `progress.tool.json`: the type is the first part. */
const typeOf = (file: string) => file.replace(/\.json$/, "").split(".")[0] ?? "";
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
    expect([...new Set(files.map(typeOf))].sort()).toEqual(types);
  });

  for (const version of versions) {
    const dir = join(fixturesRoot, `v${version}`);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const raw = readFileSync(join(dir, file), "utf8");
      // v3 made `delivery_id` required on deliverable frames: older ones without it are refused
      // (a router refuses older hosts at the handshake anyway).
      if (deliverable.has(typeOf(file)) && !("delivery_id" in JSON.parse(raw))) {
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
        expect(decoded.frame.type).toBe(typeOf(file));
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

  it("progress: a frame without `kind` (every older host) is a status line; one with it still reads in an older router, which drops the field", () => {
    const old = decodeFrame(JSON.stringify(sample(2, "progress")), Frame);
    expect(old).toMatchObject({ ok: true, frame: { type: "progress" } });
    expect(old.ok && "kind" in old.frame).toBe(false);
    // The schema as it was before `kind`: zod objects strip unknown keys, so the detail still parses.
    const before = ProgressFrame.omit({ kind: true });
    for (const kind of ["tool", "result", "usage"]) {
      const parsed = before.safeParse(sample(CURRENT_PROTOCOL_VERSION, `progress.${kind}`));
      expect(parsed.success && !("kind" in parsed.data)).toBe(true);
    }
    // A forward asking for details reads in an older host too: it just sends status lines.
    expect(
      ForwardFrame.omit({ details: true }).safeParse(sample(CURRENT_PROTOCOL_VERSION, "forward.details"))
        .success,
    ).toBe(true);
  });

  it("progress: a kind this version does not know, or of the wrong type, is a BAD_FRAME, not a crash", () => {
    for (const kind of ["thinking", 3, null, ""]) {
      const raw = JSON.stringify({ type: "progress", id: "r1", text: "x", kind });
      expect(decodeFrame(raw, Frame)).toMatchObject({ ok: false, code: "BAD_FRAME" });
    }
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
