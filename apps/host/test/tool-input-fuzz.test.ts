import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { fcParams, waitFor } from "@phonework/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ToolError } from "../src/contracts/tool.ts";
import { executeFileOps, FileOpsArgs } from "../src/files/file-ops.ts";
import { resolveInside } from "../src/os/path-guard.ts";
import { MAX_NESTING } from "../src/sandbox/shell-commands.ts";
import { blockedReason } from "../src/sandbox/shell-guard.ts";
import { executeShell, RunShellArgs } from "../src/shell/run-shell.ts";
import {
  DESTRUCTIVE,
  describeChain,
  ORDINARY,
  PROGRAM,
  WRAPPERS,
  wrapChains,
  wrapped,
} from "./shell-cases.ts";
import { makeWorkspace, toolContext } from "./support.ts";

// Tool input a confused or hostile model might produce. Shell: the destructive commands of the
// blocklist hidden under wrappers, in any combination, are still refused (checked on the guard
// itself, never by running them), while ordinary commands under the same wrappers still run;
// what the blocklist cannot see is pinned down too, matching the README. Paths: whatever mix of
// `..`, symlinks, NUL bytes and long names, a file tool stays inside WORKING_DIR.

describe("shell blocklist under wrappers", () => {
  it.each(WRAPPERS.map((w) => [w.name, w] as const))(
    "refuses every destructive command under %s",
    (_name, w) => {
      for (const [command, kind] of DESTRUCTIVE) {
        if (kind <= w.takes) expect(blockedReason(w.wrap(command)), w.wrap(command)).toBeDefined();
      }
    },
  );

  it("refuses every destructive command under any chain of up to three wrappers", () => {
    const cases = fc
      .constantFrom(...DESTRUCTIVE)
      .chain(([command, kind]) => wrapChains(kind).map((wraps) => [command, wraps] as const));
    fc.assert(
      fc.property(cases, ([command, wraps]) => {
        expect(blockedReason(wrapped(command, wraps)), describeChain(wraps)).toBeDefined();
      }),
      fcParams({ numRuns: 2000 }),
    );
  });

  it("lets ordinary commands through the same wrappers (no false alarm from the unwrapping)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORDINARY), wrapChains(PROGRAM), (command, wraps) => {
        expect(blockedReason(wrapped(command, wraps)), describeChain(wraps)).toBeUndefined();
      }),
      fcParams({ numRuns: 2000 }),
    );
  });

  it("the wrappers are real: bash runs the command inside any chain of the local ones", async () => {
    const local = WRAPPERS.filter(({ name }) => !["ssh", "su -c", "sudo -u"].includes(name));
    const { root, workingDir } = makeWorkspace();
    // `bash -lc` is a login shell: it reads the profile in HOME. The developer's own (pyenv, nvm,
    // conda…) can take seconds per shell, and a chain may start three: with the machine's HOME the
    // run time hung on the seed and on whose machine it was, and crossed the test timeout. An empty
    // HOME makes each shell what it is anywhere, a few milliseconds.
    const home = join(root, "home");
    mkdirSync(home);
    const env = { ...process.env, HOME: home };
    let run = 0;
    await fc.assert(
      fc.asyncProperty(wrapChains(PROGRAM, local), async (wraps) => {
        const marker = join(workingDir, `ran-${++run}.txt`);
        execFileSync("bash", ["-c", wrapped(`touch ${marker}`, wraps)], {
          cwd: workingDir,
          env,
          stdio: "ignore",
        });
        // `nohup … &` leaves the command running after bash: wait for it, as long as load may need.
        await waitFor(() => existsSync(marker), { message: `${marker} (${describeChain(wraps)})` });
      }),
      fcParams({ numRuns: 60 }),
    );
  });

  it("run_shell refuses a wrapped destructive command before starting anything", async () => {
    const { workingDir } = makeWorkspace();
    // The guard decides first, so this never gets near running the command.
    const command = `touch ran.txt; ${wrapped("rm -rf ~", WRAPPERS.slice(0, 3))}`;
    expect(blockedReason(command)).toBeDefined();
    await expect(
      executeShell(workingDir, RunShellArgs.parse({ command }), new AbortController().signal),
    ).rejects.toThrow(/^refused: this command looks destructive \(recursive delete/);
    expect(() => realpathSync(join(workingDir, "ran.txt"))).toThrow(/ENOENT/);
  });

  it(`refuses shells nested more than ${MAX_NESTING} deep rather than guessing`, () => {
    const deep = Array.from({ length: MAX_NESTING + 2 }).reduce<string>(
      (text) => `sh -c ${JSON.stringify(text)}`,
      "ls",
    );
    expect(blockedReason(deep)).toBe("shells nested too deeply to check");
    const shallow = Array.from({ length: 3 }).reduce<string>((text) => `sh -c ${JSON.stringify(text)}`, "ls");
    expect(blockedReason(shallow)).toBeUndefined();
  });

  it("never throws on arbitrary text, including unbalanced quotes and bad substitutions", () => {
    const shellish = fc.string({
      unit: fc.constantFrom(..."rm -f/~$(){}`'\"\\;&|<>\n*#!=.abcsh".split("")),
      maxLength: 120,
    });
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ unit: "binary", maxLength: 200 })), (text) => {
        const reason = blockedReason(text);
        expect(reason === undefined || typeof reason === "string").toBe(true);
      }),
      fcParams({ numRuns: 3000 }),
    );
    expect(blockedReason("rm -rf / ; echo ${")).toBe("recursive delete of / or the home directory");
  });

  // What the README says the blocklist does NOT protect against: anything decided at run time.
  it.each([
    ["an interpreter", `python3 -c "import shutil; shutil.rmtree('/')"`],
    ["an encoded payload piped to a shell", "echo cm0gLXJmIC8K | base64 -d | sh"],
    ["a variable holding the program", "r=rm; $r -rf /"],
    ["a target computed at run time", "rm -rf $(echo /)"],
    ["a script written to disk, then run", "printf 'reboot' > x.sh && sh x.sh"],
  ])("does not see %s (documented: not a sandbox)", (_name, command) => {
    expect(blockedReason(command)).toBeUndefined();
  });
});

/** A workspace with symlinks in every direction: inside, outside, absolute, to itself, dangling. */
function linkedWorkspace() {
  const workspace = makeWorkspace();
  const { workingDir, outside } = workspace;
  symlinkSync(join(workingDir, "todo_app"), join(workingDir, "inner-link"));
  symlinkSync("/etc", join(workingDir, "etc-link"));
  symlinkSync("self-loop", join(workingDir, "self-loop"));
  symlinkSync("no-such-target", join(workingDir, "dangling"));
  mkdirSync(join(outside, "deeper"));
  writeFileSync(join(outside, "deeper", "more.txt"), "TOP SECRET");
  return workspace;
}

const SEGMENTS = [
  "..",
  ".",
  "",
  "todo_app",
  "README.md",
  "src",
  "escape",
  "inner-link",
  "etc-link",
  "self-loop",
  "dangling",
  "outside",
  "secret.txt",
  "deeper",
  "passwd",
  "a\0b",
  "x".repeat(300),
  "ü-名前",
  "%2e%2e",
  "..\\..",
];

function hostilePaths(workingDir: string) {
  return fc
    .tuple(
      fc.constantFrom("", "/", `${workingDir}/`, `${join(workingDir, "..")}/`, "~/"),
      fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 8 }),
      fc.constantFrom("", "/", "/."),
    )
    .map(([prefix, segments, suffix]) => `${prefix}${segments.join("/")}${suffix}`);
}

describe("file tools under hostile paths", () => {
  it("resolveInside: always a real path inside WORKING_DIR, or a ToolError naming the problem", () => {
    const { workingDir } = linkedWorkspace();
    const root = realpathSync(workingDir);
    fc.assert(
      fc.property(hostilePaths(workingDir), (path) => {
        let resolved: string;
        try {
          resolved = resolveInside(workingDir, path);
        } catch (error) {
          expect(error).toBeInstanceOf(ToolError);
          expect((error as Error).message).toMatch(
            /outside the working directory|NUL byte|too long|longer than|no such file|cannot access/,
          );
          return;
        }
        const rel = relative(root, resolved);
        expect(rel.startsWith("..") || isAbsolute(rel), `${JSON.stringify(path)} → ${resolved}`).toBe(false);
        expect(realpathSync(resolved)).toBe(resolved);
      }),
      fcParams({ numRuns: 3000 }),
    );
  });

  it("file_ops never returns or sends a byte from outside WORKING_DIR, whatever the action and path", async () => {
    const { workingDir } = linkedWorkspace();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("read", "list", "search", "send"),
        hostilePaths(workingDir),
        async (action, path) => {
          const ctx = toolContext();
          const args = FileOpsArgs.parse({ action, path, query: "SECRET", depth: 3 });
          try {
            const out = await executeFileOps({ workingDir, maxFileBytes: 4096 }, args, ctx);
            expect(out).not.toContain("TOP SECRET");
            expect(out).not.toContain("root:x:0:0");
          } catch (error) {
            expect(error).toBeInstanceOf(ToolError);
          }
          for (const file of ctx.files) expect(file.data.toString()).not.toContain("TOP SECRET");
        },
      ),
      fcParams({ numRuns: 400 }),
    );
  });
});
