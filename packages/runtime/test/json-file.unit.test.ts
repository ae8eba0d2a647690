import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readJsonFile, StateFileError, writeJsonFileAtomic } from "../src/index.ts";

const dir = makeTempDir();
afterAll(() => dir.remove());

const Shape = z.object({ n: z.number() });

describe("json state files", () => {
  it("writes atomically and reads back through the schema", () => {
    const path = join(dir.path, "nested", "state.json");
    writeJsonFileAtomic(path, { n: 3 });
    expect(readJsonFile(path, Shape, { n: 0 })).toEqual({ n: 3 });
    expect(readdirSync(join(dir.path, "nested"))).toEqual(["state.json"]); // no temp file left
  });

  it("returns the fallback for a missing file", () => {
    expect(readJsonFile(join(dir.path, "none.json"), Shape, { n: 9 })).toEqual({ n: 9 });
  });

  it("refuses corrupt or wrongly shaped files with a clear error instead of losing them", () => {
    const path = join(dir.path, "bad.json");
    writeFileSync(path, "{half");
    expect(() => readJsonFile(path, Shape, { n: 0 })).toThrow(StateFileError);
    expect(readFileSync(path, "utf8")).toBe("{half");
    writeFileSync(path, '{"n":"x"}');
    expect(() => readJsonFile(path, Shape, { n: 0 })).toThrow(/unexpected shape/);
  });
});
