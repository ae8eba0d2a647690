import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The protocol is shared by router and host; it must never depend on either app.
describe("protocol package boundaries", () => {
  const srcDir = join(import.meta.dirname, "..", "src");
  const files = readdirSync(srcDir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));

  it("has source files to check", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`${file} imports only zod and its own files`, () => {
      const text = readFileSync(join(srcDir, file), "utf8");
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]);
      const foreign = specifiers.filter((s) => s !== "zod" && !s?.startsWith("./"));
      expect(foreign).toEqual([]);
    });
  }
});
