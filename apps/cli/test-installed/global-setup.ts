import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import type { TestProject } from "vitest/node";
import type { Installation } from "./installation.ts";

// The installed suite's global setup: pack `phonework` once (or take PHONEWORK_TARBALL), install it
// as a user does — `npm install -g --prefix <empty dir>`, npm and its scripts running on the Node
// under test (PHONEWORK_NODE, default this one) — and hand the install to every test file.
// On Linux x64 the compilers and build tools are replaced by stubs that write down their call and
// fail: every native part must come prebuilt, and install.test.ts says which one did not.

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const BUILD_TOOLS = [
  "cc",
  "gcc",
  "g++",
  "c++",
  "clang",
  "clang++",
  "make",
  "gmake",
  "python3",
  "python",
  "node-gyp",
];
const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(join(tmpdir(), "phonework-installed-"));
  const node = realpathSync(process.env.PHONEWORK_NODE || process.execPath);
  const nodeVersion = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();

  const packStarted = Date.now();
  const tarball = process.env.PHONEWORK_TARBALL ? realpathSync(process.env.PHONEWORK_TARBALL) : pack(work);
  const packSeconds = (Date.now() - packStarted) / 1000;
  const manifest = JSON.parse(
    execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }),
  );

  const prebuiltOnly = process.platform === "linux" && process.arch === "x64";
  const stubs = join(work, "build-tools");
  const calls = join(work, "build-tool-calls.log");
  if (prebuiltOnly) stubBuildTools(stubs, calls);

  const prefix = join(work, "prefix");
  // Elsewhere node-gyp may build what has no prebuilt binary, against the headers beside this node
  // (a node from the registry's node-<os>-<arch> package has them in include/node).
  const nodeHome = dirname(dirname(node));
  const headers = !prebuiltOnly && existsSync(join(nodeHome, "include", "node", "node.h"));
  const started = Date.now();
  const { code, output } = await run(
    node,
    [
      npmCli(),
      "install",
      "--global",
      "--prefix",
      prefix,
      "--no-audit",
      "--no-fund",
      "--foreground-scripts",
      tarball,
    ],
    {
      ...npmEnvironment(),
      PATH: [...(prebuiltOnly ? [stubs] : []), dirname(node), process.env.PATH ?? ""].join(delimiter),
      ...(headers ? { npm_config_nodedir: nodeHome } : {}),
    },
  );
  const installSeconds = (Date.now() - started) / 1000;
  const compilerCalls = existsSync(calls) ? readFileSync(calls, "utf8").split("\n").filter(Boolean) : [];
  if (code !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(
      `npm install -g of ${tarball} on node ${nodeVersion} exited ${code}` +
        (compilerCalls.length > 0 ? `; it tried to compile: ${compilerCalls.join(" | ")}` : "") +
        `\n${output.slice(-4000)}`,
    );
  }

  const installedMb = Number(execFileSync("du", ["-sk", prefix], { encoding: "utf8" }).split("\t")[0]) / 1024;
  const installation: Installation = {
    prefix,
    bin: join(prefix, "bin", "phonework"),
    node,
    nodeVersion,
    path: [join(prefix, "bin"), dirname(node), ...SYSTEM_PATH].join(delimiter),
    version: manifest.version,
    tarball,
    installLog: output,
    installSeconds,
    installedMb,
    compilerCalls,
    prebuiltOnly,
  };
  project.provide("installation", installation);
  process.stdout.write(
    `phonework ${manifest.version} on node ${nodeVersion}: ` +
      (process.env.PHONEWORK_TARBALL ? "" : `packed in ${packSeconds.toFixed(1)} s, `) +
      `npm install -g took ${installSeconds.toFixed(1)} s, installed size ${installedMb.toFixed(0)} MB\n`,
  );
  return () => rmSync(work, { recursive: true, force: true });
}

/** `pnpm package <work>/pack`, run with this process's node: the tarball's path. */
function pack(work: string): string {
  const printed = execFileSync(
    process.execPath,
    ["--import", "tsx", "scripts/package.ts", join(work, "pack")],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  );
  return printed.trim().split("\n").at(-1) ?? "";
}

/** The npm on PATH, run by the Node under test (a node from the registry's node-<os>-<arch> has none of its own). */
function npmCli(): string {
  const npm = realpathSync(execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim());
  if (!npm.endsWith("npm-cli.js")) throw new Error(`can't find npm-cli.js behind ${npm}`);
  return npm;
}

/**
 * This environment without what pnpm running the tests set for its scripts (npm_config_node_gyp,
 * npm_config_nodedir, npm_config_reporter=silent…): npm reads them as its own settings.
 */
function npmEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("npm_"),
    ),
  );
}

/** Build tools that write down how they were called and fail, first on the install's PATH. */
function stubBuildTools(dir: string, log: string): void {
  mkdirSync(dir, { recursive: true });
  for (const tool of BUILD_TOOLS) {
    const path = join(dir, tool);
    writeFileSync(
      path,
      `#!/bin/sh\necho "${tool} $*" >> '${log}'\necho "${tool}: no compiling during the install" >&2\nexit 1\n`,
    );
    chmodSync(path, 0o755);
  }
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
