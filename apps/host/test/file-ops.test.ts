import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeFileOps, FileOpsArgs } from "../src/files/file-ops.ts";
import { makeWorkspace, toolContext } from "./support.ts";

const run = (workingDir: string, input: Record<string, unknown>, ctx = toolContext(), maxFileBytes = 1024) =>
  executeFileOps({ workingDir, maxFileBytes }, FileOpsArgs.parse(input), ctx);

describe("file_ops", () => {
  it("read: the start of a file, truncated to max_bytes with a note", async () => {
    const { workingDir } = makeWorkspace();
    const out = await run(workingDir, { action: "read", path: "audit/abc123.jsonl", max_bytes: 30 });
    expect(out).toContain('{"line":1}\n{"line":2}');
    expect(out).toMatch(/truncated: file is \d+ bytes, showed the first 30/);
  });

  it("read: the last N lines", async () => {
    const { workingDir } = makeWorkspace();
    const out = await run(workingDir, { action: "read", path: "audit/abc123.jsonl", tail_lines: 50 });
    const lines = out.split("\n").slice(1);
    expect(lines).toHaveLength(50);
    expect(lines[0]).toBe('{"line":51}');
    expect(lines.at(-1)).toBe('{"line":100}');
  });

  it("list: a tree with sizes, no deeper than asked", async () => {
    const { workingDir } = makeWorkspace();
    const out = await run(workingDir, { action: "list", path: "todo_app", depth: 1 });
    expect(out).toBe("todo_app/\n  README.md  24 B\n  src/");
    const deep = await run(workingDir, { action: "list", path: "todo_app", depth: 3 });
    expect(deep).toContain("    app.py  ");
    expect(() => FileOpsArgs.parse({ action: "list", depth: 4 })).toThrow();
  });

  it("search: matching lines with file and line number", async () => {
    const { workingDir } = makeWorkspace();
    const out = await run(workingDir, { action: "search", path: "todo_app", query: "todo:" });
    expect(out).toContain("todo_app/README.md:2: TODO: write docs");
    expect(out).toContain("todo_app/src/app.py:2: pass  # TODO: implement");
    await expect(run(workingDir, { action: "search", path: "." })).rejects.toThrow('search needs a "query"');
  });

  it("send: delivers the file's bytes to the chat", async () => {
    const { workingDir } = makeWorkspace();
    const ctx = toolContext();
    const out = await run(workingDir, { action: "send", path: "todo_app/README.md" }, ctx);
    expect(out).toBe("sent todo_app/README.md (24 bytes) to the chat");
    expect(ctx.files).toEqual([
      { name: "README.md", data: Buffer.from("# Todo\nTODO: write docs\n"), mimeType: "text/markdown" },
    ]);
  });

  it("send: refuses a file over the cap, naming the cap", async () => {
    const { workingDir } = makeWorkspace();
    writeFileSync(join(workingDir, "big.bin"), Buffer.alloc(2048));
    await expect(run(workingDir, { action: "send", path: "big.bin" })).rejects.toThrow(
      "big.bin is 2048 bytes; files larger than 1024 bytes (MAX_FILE_BYTES) cannot be sent",
    );
  });

  it("refuses every escape: ../, an absolute path outside, a symlink pointing out", async () => {
    const { workingDir, outside } = makeWorkspace();
    for (const path of [
      "../outside/secret.txt",
      join(outside, "secret.txt"),
      "/etc/passwd",
      "escape/secret.txt",
      "todo_app/../../outside/secret.txt",
    ]) {
      for (const action of ["read", "send", "list", "search"]) {
        await expect(run(workingDir, { action, path, query: "x" }), `${action} ${path}`).rejects.toThrow(
          /outside the working directory/,
        );
      }
    }
  });

  it("refuses NUL bytes and absurdly long names with a clear error", async () => {
    const { workingDir } = makeWorkspace();
    await expect(run(workingDir, { action: "read", path: "a\0b" })).rejects.toThrow(
      "path contains a NUL byte",
    );
    await expect(run(workingDir, { action: "read", path: "x".repeat(5000) })).rejects.toThrow(
      /longer than 4096/,
    );
    await expect(run(workingDir, { action: "read", path: "y".repeat(300) })).rejects.toThrow(
      /too long|no such file/,
    );
    await expect(run(workingDir, { action: "read", path: "missing.txt" })).rejects.toThrow(
      "no such file or directory: missing.txt",
    );
  });

  it("read: refuses a binary file and points to send", async () => {
    const { workingDir } = makeWorkspace();
    writeFileSync(join(workingDir, "blob.bin"), Buffer.from([1, 0, 2]));
    await expect(run(workingDir, { action: "read", path: "blob.bin" })).rejects.toThrow(
      /binary file.*use action "send"/,
    );
  });
});
