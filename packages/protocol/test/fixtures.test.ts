import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeFrame, Frame, HostFrame, PROTOCOL_VERSIONS, RouterFrame } from "../src/index.ts";

const fixturesRoot = join(import.meta.dirname, "..", "fixtures");

describe("protocol fixtures", () => {
  for (const version of PROTOCOL_VERSIONS) {
    const dir = join(fixturesRoot, `v${version}`);
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));

    it(`v${version}: every frame type has a sample`, () => {
      const types = Frame.options.map((o) => o.shape.type.value).sort();
      expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual(types);
    });

    for (const file of files) {
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

  it("direction unions split the frames with only `error` in both", () => {
    const host: string[] = HostFrame.options.map((o) => o.shape.type.value);
    const router: string[] = RouterFrame.options.map((o) => o.shape.type.value);
    expect(host.filter((t) => router.includes(t))).toEqual(["error"]);
    expect(new Set([...host, ...router]).size).toBe(Frame.options.length);
  });
});
