import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, StartupError } from "@phonework/runtime";
import { createTestLogger, makeTempDir, spawnApp, startFakeRouter } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { HostConfigSchema } from "../src/config/host-config.ts";
import { createHost } from "../src/create-host.ts";
import { runCommand } from "../src/os/process-tree.ts";
import { openSandbox } from "../src/sandbox/open-sandbox.ts";
import { probeSandbox } from "../src/sandbox/probe-sandbox.ts";
import { WorkspaceLayout } from "../src/workspace/workspace-layout.ts";
import { ALICE } from "./sandbox-support.ts";
import { onCleanup, startHost } from "./support.ts";

// SANDBOX at start: on refuses to start where the sandbox cannot work (one line saying why), auto
// warns once and runs commands as before, off never tries; bwrap is tried, not just looked for; the
// host's start line says which it is.
// And the keys: SANDBOX_NETWORK takes on or off, never a domain list it could not enforce.

function tempDir(): string {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  return dir.path;
}

/** A directory with only a fake `bwrap` in it: installed, but unable to make a sandbox. */
function brokenBwrapPath(): string {
  const bin = tempDir();
  const bwrap = join(bin, "bwrap");
  writeFileSync(
    bwrap,
    '#!/bin/sh\necho "bwrap: No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
  );
  chmodSync(bwrap, 0o755);
  return bin;
}

const config = (keys: Record<string, unknown>) =>
  HostConfigSchema.parse({
    ROUTER_SECRET: "s",
    WORKING_DIR: tempDir(),
    DATA_DIR: tempDir(),
    NODE_ID: "n",
    ...keys,
  });

function open(keys: Record<string, unknown>, path: string | undefined, probe = probeSandbox) {
  const { logger, lines } = createTestLogger();
  const parsed = config(keys);
  const sandbox = openSandbox(parsed, {
    env: { PATH: path, HOME: parsed.WORKING_DIR },
    workspace: new WorkspaceLayout(join(parsed.DATA_DIR, "workspace")),
    channelsOf: () => [],
    logger,
    probe,
  });
  return { sandbox, lines, dir: parsed.WORKING_DIR };
}

describe("SANDBOX at start", () => {
  it("on, where bwrap is missing: the host refuses to start, with one line saying why", async () => {
    const dir = tempDir();
    const host = spawnApp("host", {
      SANDBOX: "on",
      PATH: tempDir(), // no bwrap on it
      DATA_DIR: dir,
      WORKING_DIR: dir,
      HOME: dir,
      ROUTER_SECRET: "secret",
      NODE_ID: "n",
      PHONEWORK_CONFIG: "",
    });
    onCleanup(() => host.kill("SIGKILL"));
    const { code } = await host.exited;
    expect(code).toBe(1);
    const refusal = host
      .stderr()
      .split("\n")
      .filter((line) => line.includes("SANDBOX"));
    expect(refusal).toEqual([
      "phonework: SANDBOX=on, but bwrap is not on PATH; install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)",
    ]);
    expect(existsSync(join(dir, "host", "n", "state.db"))).toBe(false); // refused before opening anything
  });

  it("on, where bwrap is installed but cannot make a sandbox: refused too, with bwrap's reason", () => {
    expect(() => open({ SANDBOX: "on" }, brokenBwrapPath())).toThrow(StartupError);
    expect(() => open({ SANDBOX: "on" }, brokenBwrapPath())).toThrow(
      /^SANDBOX=on, but \S+\/bwrap cannot create a sandbox here: bwrap: No permissions to create a new namespace/,
    );
    const dir = tempDir();
    const refused = () =>
      createHost(config({ SANDBOX: "on", WORKING_DIR: dir, DATA_DIR: dir }), {
        logger: createTestLogger().logger,
        env: { PATH: brokenBwrapPath() },
      });
    expect(refused).toThrow(StartupError);
  });

  it("auto, where it is unavailable: one warning, and commands run unsandboxed", async () => {
    for (const path of ["", brokenBwrapPath()]) {
      const { sandbox, lines, dir } = open({ SANDBOX: "auto" }, path);
      const warnings = lines().filter((line) => line.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toMatch(/^no sandbox: commands run with this user's rights \(SANDBOX=auto; /);
      expect(sandbox.status.active).toBe(false);
      const outside = tempDir();
      await runCommand(`touch ${outside}/written`, {
        cwd: dir,
        timeoutMs: 5000,
        maxOutputChars: 1000,
        wrap: sandbox.forScope(ALICE),
      });
      expect(existsSync(join(outside, "written"))).toBe(true);
    }
  });

  it("auto where it works is on; off never tries it", () => {
    const on = open({}, process.env.PATH);
    expect(on.sandbox.status).toMatchObject({
      active: true,
      network: "on",
      version: expect.stringMatching(/^bubblewrap /),
    });
    expect(on.lines().filter((line) => Number(line.level) >= 40)).toEqual([]);
    let tried = false;
    const off = open({ SANDBOX: "off" }, process.env.PATH, (options) => {
      tried = true;
      return probeSandbox(options);
    });
    expect(tried).toBe(false);
    expect(off.sandbox.status).toEqual({ active: false, reason: "SANDBOX=off" });
    expect(off.sandbox.forScope(ALICE)(["/bin/sh", "-c", "ls"], "/")).toEqual(["/bin/sh", "-c", "ls"]);
  });

  it("the host's start line says whether commands run sandboxed, and if not, why", async () => {
    const router = await startFakeRouter({ secret: "s" });
    onCleanup(() => router.close());
    const startLine = async (keys: Record<string, unknown>, path: string | undefined) => {
      const { logger, lines } = createTestLogger("info");
      await startHost(router.url, "s", keys, { logger, env: { ...process.env, PATH: path } }).ready();
      return lines().find((line) => line.msg === "registered with router");
    };
    expect(await startLine({ SANDBOX: "off" }, process.env.PATH)).toMatchObject({
      level: 30,
      sandbox: "off: SANDBOX=off",
    });
    expect((await startLine({}, brokenBwrapPath()))?.sandbox).toMatch(
      /^off: \S+\/bwrap cannot create a sandbox here: bwrap: No permissions to create a new namespace/,
    );
    expect((await startLine({ SANDBOX: "on" }, process.env.PATH))?.sandbox).toMatch(
      /^on: bubblewrap [\d.]+, network on$/,
    );
  });

  it("warns when WORKING_DIR is DATA_DIR (or inside it): that part of DATA_DIR is the commands' to see", () => {
    const dir = tempDir();
    const { lines } = open({ WORKING_DIR: dir, DATA_DIR: dir }, process.env.PATH);
    expect(lines().find((line) => line.level === 40)?.msg).toBe(
      "WORKING_DIR is DATA_DIR or inside it: commands can see that part of DATA_DIR",
    );
  });

  it("bubblewrap runs on Linux only: elsewhere it is unavailable, saying so", () => {
    expect(probeSandbox({ path: process.env.PATH, network: "on", platform: "darwin" })).toEqual({
      ok: false,
      reason: "the sandbox uses bubblewrap, which runs on Linux only (this is darwin)",
    });
  });
});

describe("the sandbox's config keys", () => {
  const load = (env: Record<string, string>, file?: string) =>
    loadConfig(HostConfigSchema, {
      configPath: file ? "host.yaml" : undefined,
      env,
      readFile: () => file ?? "",
    }).config;

  it("SANDBOX_NETWORK is on or off; a list of domains is refused, naming the key and why", () => {
    expect(load({}).SANDBOX_NETWORK).toBe("on");
    expect(load({ SANDBOX_NETWORK: " OFF " }).SANDBOX_NETWORK).toBe("off");
    for (const [env, file] of [
      [{ SANDBOX_NETWORK: "github.com,registry.npmjs.org" }, undefined],
      [{}, "SANDBOX_NETWORK:\n  - github.com\n  - registry.npmjs.org\n"],
    ] as const)
      expect(() => load(env, file)).toThrow(
        /SANDBOX_NETWORK: must be on or off, not "github\.com,registry\.npmjs\.org": the sandbox \(bubblewrap, driven directly\) can only cut the network off entirely, so a list of allowed domains cannot be enforced and is refused rather than ignored/,
      );
    expect(() => load({ SANDBOX: "maybe" })).toThrow(ConfigError);
    expect(() => load({ SANDBOX: "maybe" })).toThrow(/SANDBOX: must be auto, on or off/);
  });

  it("SANDBOX_WRITABLE and SANDBOX_HIDE are path lists: comma-separated or YAML, ~ expanded", () => {
    const home = process.env.HOME ?? "";
    const config = load(
      { SANDBOX_WRITABLE: "~/.cache, /srv/shared" },
      "SANDBOX_HIDE:\n  - ~/.netrc\n  - /etc/phonework\n",
    );
    expect(config.SANDBOX_WRITABLE).toEqual([join(home, ".cache"), "/srv/shared"]);
    expect(config.SANDBOX_HIDE).toEqual([join(home, ".netrc"), "/etc/phonework"]);
    expect(load({}).SANDBOX_HIDE).toEqual([]);
  });
});
