import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { structureProblems } from "../check-folders.ts";

// `pnpm check`'s structure check (scripts/check-folders.ts): it fails on a folder or file cycle and
// on a function too long to read; `pnpm check` runs it on this repository.

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "structure-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** What `pnpm check` would say of these trees: exit 1 and the problems, or 0. */
function check(...dirs: string[]): { code: number; out: string } {
  const problems = structureProblems(dirs, dirs);
  return problems.length > 0 ? { code: 1, out: problems.join("\n") } : { code: 0, out: "" };
}

describe("the structure check", () => {
  // One run over two trees (each a source tree of its own); `pnpm check` runs it on this repository.
  it("fails on folders and files that import each other (a type-only import counts), on a function over 120 lines and on a composition root over 80, naming each", () => {
    const cycle = tree({
      "a/x.ts": 'import { y } from "../b/y.ts";\nexport const x = y;\n',
      "b/y.ts": 'import type { x } from "../a/x.ts";\nexport const y = 1 as unknown as typeof x;\n',
    });
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const long = tree({
      "long.ts": `export function tooLong() {\n${body(119)}\n}\n`,
      "root.ts": `export function createHost() {\n${body(79)}\n}\n`,
      "fine.ts": `export function fine() {\n${body(118)}\n}\n`,
    });
    const result = check(cycle, long);
    expect(result.code).toBe(1);
    expect(result.out).toContain("folders import each other: a ⇄ b");
    expect(result.out).toContain("files import each other: a/x.ts ⇄ b/y.ts");
    expect(result.out).toMatch(/long\.ts:1: tooLong is 121 lines \(at most 120\)/);
    expect(result.out).toMatch(/root\.ts:1: createHost is 81 lines \(at most 80\)/);
    expect(result.out).not.toContain("fine");
  });

  it("passes on two trees without a cycle or a long function", () => {
    const clean = tree({
      "a/x.ts": 'import { y } from "../b/y.ts";\nexport const x = y;\n',
      "b/y.ts": "export const y = 1;\n",
    });
    expect(check(clean)).toEqual({ code: 0, out: "" });
  });
});
