import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBoundary, type DescriptorCheck, verifyDescriptor } from "../src/files/boundary.ts";
import { executeFileOps, FileOpsArgs } from "../src/files/file-ops.ts";
import { makeWorkspace, onCleanup, toolContext } from "./support.ts";

// The file tools against an attacker who can write inside WORKING_DIR: a hard link to a file
// outside, and a directory swapped for a symlink pointing out while the tool is at work. Real
// files, a real second process doing the swapping; the secret must never come back.

const SECRET = "TOP SECRET";
const HARMLESS = "harmless";
const OUTSIDE_NAME = "only-outside.txt";
const MAX_ATTEMPTS = 15_000;
const RACE_MS = 1500;
/** How long the swapper may hold each state, so the tools meet both often (fixtures/swap-dir.mjs). */
const HOLD_MICROS = 40;
const HAS_PROC = existsSync("/proc/self/fd");
const CHECKS: DescriptorCheck[] = HAS_PROC ? ["proc", "inode"] : ["inode"];

const run = (
  workingDir: string,
  input: Record<string, unknown>,
  ctx = toolContext(),
  descriptorCheck?: DescriptorCheck,
) =>
  executeFileOps(
    { workingDir, maxFileBytes: 4096, ...(descriptorCheck ? { descriptorCheck } : {}) },
    FileOpsArgs.parse(input),
    ctx,
  );

/** WORKING_DIR/d holds f (harmless); the outside directory holds f (the secret) and a name of its own. */
function raceWorkspace() {
  const workspace = makeWorkspace();
  const { workingDir, root } = workspace;
  mkdirSync(join(workingDir, "d"));
  writeFileSync(join(workingDir, "d", "f"), HARMLESS);
  const target = join(root, "outside-dir");
  mkdirSync(target);
  writeFileSync(join(target, "f"), SECRET);
  writeFileSync(join(target, OUTSIDE_NAME), SECRET);
  return { ...workspace, target };
}

/** Starts the swapper on `dir` and resolves once it is swapping; killed (and awaited) after the test. */
async function startSwapper(dir: string, outside: string): Promise<ChildProcess> {
  const script = join(import.meta.dirname, "fixtures", "swap-dir.mjs");
  const child = spawn(
    process.execPath,
    [script, dir, outside, String(Date.now() + 20_000), String(HOLD_MICROS)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const exited = once(child, "exit");
  onCleanup(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    await exited;
  });
  const ready = once(child.stdout as NodeJS.ReadableStream, "data") as Promise<[Buffer]>;
  const died = exited.then(([code]) => Promise.reject(new Error(`swapper exited early (${code})`)));
  const [chunk] = await Promise.race([ready, died]);
  expect(chunk.toString()).toContain("ready");
  return child;
}

interface RaceResult {
  attempts: number;
  succeeded: number;
  escapes: number;
  /** Failures that are not a ToolError: the tool should always answer with a clear refusal instead. */
  crashes: number;
}

/** Calls the tool again and again while the swapper runs; counts answers that carry outside data. */
async function race(attempt: (n: number) => Promise<string | undefined>): Promise<RaceResult> {
  const result: RaceResult = { attempts: 0, succeeded: 0, escapes: 0, crashes: 0 };
  const deadline = Date.now() + RACE_MS;
  while (result.attempts < MAX_ATTEMPTS && Date.now() < deadline) {
    result.attempts++;
    let leaked: string | undefined;
    try {
      leaked = await attempt(result.attempts);
      result.succeeded++;
    } catch (error) {
      // Refusals and "no such file" (the directory is briefly away mid-swap) are fine outcomes.
      if (!(error instanceof Error) || error.name !== "ToolError") result.crashes++;
    }
    if (leaked !== undefined && (leaked.includes(SECRET) || leaked.includes(OUTSIDE_NAME))) result.escapes++;
  }
  return result;
}

describe.each(CHECKS)("file tools, checking descriptors by %s: a hard link to a file outside", (check) => {
  function hardLinked() {
    const workspace = makeWorkspace();
    linkSync(join(workspace.outside, "secret.txt"), join(workspace.workingDir, "looks-local.txt"));
    return workspace;
  }

  it("read refuses it, naming the hard link", async () => {
    const { workingDir } = hardLinked();
    await expect(
      run(workingDir, { action: "read", path: "looks-local.txt" }, toolContext(), check),
    ).rejects.toThrow(/looks-local\.txt has 2 hard links.*refused/);
  });

  it("send refuses it and delivers nothing", async () => {
    const { workingDir } = hardLinked();
    const ctx = toolContext();
    await expect(run(workingDir, { action: "send", path: "looks-local.txt" }, ctx, check)).rejects.toThrow(
      /hard links/,
    );
    expect(ctx.files).toEqual([]);
  });

  it("search skips it, in a directory walk and when named directly", async () => {
    const { workingDir } = hardLinked();
    for (const path of [".", "looks-local.txt"]) {
      const out = await run(workingDir, { action: "search", path, query: "secret" }, toolContext(), check);
      expect(out).not.toContain(SECRET);
      expect(out).toMatch(/^no matches/);
    }
  });

  it("an ordinary file beside it still reads, sends and is searched", async () => {
    const { workingDir } = hardLinked();
    expect(
      await run(workingDir, { action: "read", path: "todo_app/README.md" }, toolContext(), check),
    ).toContain("TODO: write docs");
    const ctx = toolContext();
    await run(workingDir, { action: "send", path: "todo_app/README.md" }, ctx, check);
    expect(ctx.files[0]?.data.toString()).toBe(readFileSync(join(workingDir, "todo_app/README.md"), "utf8"));
    expect(
      await run(workingDir, { action: "search", path: ".", query: "todo:" }, toolContext(), check),
    ).toContain("todo_app/README.md:2: TODO: write docs");
  });
});

describe("file tools: names that only look like a way out", () => {
  it("a file inside whose name starts with two dots still reads", async () => {
    const { workingDir } = makeWorkspace();
    writeFileSync(join(workingDir, "..notes"), "kept inside");
    expect(await run(workingDir, { action: "read", path: "..notes" })).toContain("kept inside");
  });
});

describe.each(CHECKS)("the descriptor check, by %s", (check) => {
  // What a swap between the path check and the open amounts to: the descriptor is another file
  // than the (inside) path names. Here without a race, so it is refused every time.
  it("refuses a descriptor that is not the file the inside path names", () => {
    const { workingDir, outside } = makeWorkspace();
    const boundary = createBoundary(workingDir, { check });
    const fd = openSync(join(outside, "secret.txt"), "r");
    onCleanup(() => closeSync(fd));
    const claimed = join(realpathSync(workingDir), "todo_app", "README.md");
    expect(() => verifyDescriptor(boundary, fd, claimed, "todo_app/README.md")).toThrow(
      /outside the working directory|changed while it was being opened/,
    );
  });

  it("accepts the descriptor of the file the inside path names", () => {
    const { workingDir } = makeWorkspace();
    const boundary = createBoundary(workingDir, { check });
    const claimed = join(realpathSync(workingDir), "todo_app", "README.md");
    const fd = openSync(claimed, "r");
    onCleanup(() => closeSync(fd));
    expect(() => verifyDescriptor(boundary, fd, claimed, "todo_app/README.md")).not.toThrow();
  });
});

// Raced only where /proc checks descriptors: without it (macOS) the check compares inodes with
// the path's realpath, lookups by path that a fast swapper can still slip between
// (files/boundary.ts), so there it narrows the race rather than closing it.
const RACED = ["read", "send", "list", "search"] as const;

/** One call of a tool on the swapped directory; what it returned or sent. List and search
 * alternate between naming the directory and walking into it from above. */
const ATTACKS: Record<(typeof RACED)[number], (workingDir: string, n: number) => Promise<string>> = {
  read: (workingDir) => run(workingDir, { action: "read", path: "d/f" }),
  send: async (workingDir) => {
    const ctx = toolContext();
    await run(workingDir, { action: "send", path: "d/f" }, ctx);
    return ctx.files.map((file) => file.data.toString()).join("\n");
  },
  list: (workingDir, n) => run(workingDir, { action: "list", path: n % 2 ? "." : "d", depth: 2 }),
  search: (workingDir, n) => run(workingDir, { action: "search", path: n % 2 ? "." : "d", query: "secret" }),
};

describe("file tools: a directory swapped for a symlink pointing out, while they work", () => {
  it.skipIf(!HAS_PROC).each(RACED)(
    "%s never returns outside data, and some calls succeed",
    async (action) => {
      const { workingDir, target } = raceWorkspace();
      await startSwapper(join(workingDir, "d"), target);
      const result = await race((n) => ATTACKS[action](workingDir, n));
      expect(result.escapes, JSON.stringify(result)).toBe(0);
      expect(result.crashes, JSON.stringify(result)).toBe(0);
      expect(result.succeeded).toBeGreaterThan(0);
    },
  );
});
