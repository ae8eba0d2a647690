import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CleanupScope, cliMain } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { processRunner } from "../src/service/command-runner.ts";
import { launchCommand } from "../src/service/launch-command.ts";
import { ServiceError } from "../src/service/service-error.ts";
import { planService } from "../src/service/service-plan.ts";
import { servicePath } from "../src/service/service-spec.ts";
import { type ServiceUser, serviceUser } from "../src/service/service-user.ts";
import { writeFakeCommand } from "./fake-command.ts";

const scope = new CleanupScope();
afterEach(() => scope.run());

/** An installed package's layout: the bin symlink and the bundle it points to. */
function installedPackage(): { bin: string; bundle: string; dir: string } {
  const dir = scope.tempDir();
  const bundle = join(dir, "lib", "node_modules", "phonework", "dist", "phonework.js");
  mkdirSync(dirname(bundle), { recursive: true });
  writeFileSync(bundle, "");
  mkdirSync(join(dir, "bin"));
  const bin = join(dir, "bin", "phonework");
  symlinkSync(bundle, bin);
  return { bin, bundle, dir };
}

const caughtError = (run: () => unknown): ServiceError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("no ServiceError");
};

describe("launch command", () => {
  it("runs this node on the real path of the installed bundle, the app and the absolute config", () => {
    const { bin, bundle, dir } = installedPackage();
    writeFileSync(join(dir, "host.yaml"), "");
    const launch = launchCommand({
      app: "host",
      execPath: "/usr/bin/node",
      entry: bin,
      configPath: "host.yaml",
      cwd: dir,
    });
    expect(launch.argv).toEqual(["/usr/bin/node", bundle, "host", "--config", join(dir, "host.yaml")]);
    expect(launch.fromSource).toBe(false);
  });

  it("from the source checkout, bakes in the tsx loader by its absolute path", () => {
    const launch = launchCommand({
      app: "router",
      execPath: process.execPath,
      entry: cliMain,
      configPath: undefined,
      cwd: "/",
    });
    const [node, flag, loader, entry, app] = launch.argv as [string, string, string, string, string];
    expect([node, flag, entry, app]).toEqual([process.execPath, "--import", cliMain, "router"]);
    expect(loader).toMatch(/\/tsx\/dist\/loader\.mjs$/);
    expect(existsSync(loader)).toBe(true);
    expect(launch.fromSource).toBe(true);
    expect(launch.argv).not.toContain("--config");
  });

  it("refuses TypeScript without tsx beside it, saying what to do", () => {
    const entry = join(scope.tempDir(), "main.ts");
    writeFileSync(entry, "");
    const error = caughtError(() =>
      launchCommand({ app: "host", execPath: "/usr/bin/node", entry, configPath: undefined, cwd: "/" }),
    );
    expect(error.message).toMatch(/tsx loader is not installed beside it: run pnpm install there/);
  });

  it("a missing config file is a usage error (exit 2) naming the absolute path", () => {
    const { bin, dir } = installedPackage();
    const missing = caughtError(() =>
      launchCommand({
        app: "host",
        execPath: "/usr/bin/node",
        entry: bin,
        configPath: "nope.yaml",
        cwd: dir,
      }),
    );
    expect([missing.exitCode, missing.message]).toEqual([
      2,
      `config file ${join(dir, "nope.yaml")} does not exist`,
    ]);
    const directory = caughtError(() =>
      launchCommand({ app: "host", execPath: "/usr/bin/node", entry: bin, configPath: dir, cwd: "/" }),
    );
    expect([directory.exitCode, directory.message]).toEqual([2, `config file ${dir} is not a file`]);
  });
});

describe("service plan", () => {
  const ann: ServiceUser = { name: "ann", group: "1000", uid: 1000, home: "/home/ann", viaSudo: false };

  it("PATH is the user's, each directory once, with node's own directory added", () => {
    expect(servicePath("/home/ann/.local/bin:/usr/bin:/home/ann/.local/bin", "/opt/node/bin")).toBe(
      "/home/ann/.local/bin:/usr/bin:/opt/node/bin",
    );
    expect(servicePath("/opt/node/bin:/usr/bin", "/opt/node/bin")).toBe("/opt/node/bin:/usr/bin");
  });

  it("bakes in PHONEWORK_CONFIG when no --config is given, and says so", () => {
    const { bin, dir } = installedPackage();
    const config = join(dir, "host.yaml");
    writeFileSync(config, "");
    const { spec, notes } = planService({
      app: "host",
      scope: "user",
      configPath: undefined,
      flags: [],
      env: { PHONEWORK_CONFIG: config, PATH: "/usr/bin" },
      execPath: "/opt/node/bin/node",
      entry: bin,
      cwd: "/",
      user: ann,
    });
    expect(spec.argv.slice(-2)).toEqual(["--config", config]);
    expect(spec.path).toBe("/usr/bin:/opt/node/bin");
    expect(spec.workingDirectory).toBe("/home/ann");
    expect(spec.runAs).toBeUndefined();
    expect(notes).toEqual([`the config file is PHONEWORK_CONFIG's: ${config}`]);
  });

  it("a system unit runs as the user; standalone and no config get a note each", () => {
    const { bin } = installedPackage();
    const { spec, notes } = planService({
      app: "standalone",
      scope: "system",
      configPath: undefined,
      flags: [],
      env: {},
      execPath: "/usr/bin/node",
      entry: bin,
      cwd: "/",
      user: { ...ann, viaSudo: true },
    });
    expect(spec.runAs).toEqual({ user: "ann", group: "1000" });
    expect(notes.join("\n")).toMatch(/no --config/);
    expect(notes.join("\n")).toMatch(/standalone as a service has no terminal/);
    expect(notes.join("\n")).toMatch(/PATH is sudo's/);
  });
});

describe("service user", () => {
  it("under sudo, a system unit is for SUDO_USER, with their home from getent", async () => {
    const bin = scope.tempDir();
    const getent = writeFakeCommand(
      bin,
      "getent",
      `"passwd ann") echo 'ann:x:1000:1000:Ann:/home/ann:/bin/bash' ;;`,
    );
    const runner = processRunner({ ...process.env, PATH: `${bin}:${process.env.PATH}` });
    const user = await serviceUser({
      forSystemUnit: true,
      env: { SUDO_USER: "ann", SUDO_UID: "1000", SUDO_GID: "1001" },
      whoami: { username: "root", uid: 0, gid: 0 },
      home: "/root",
      runner,
    });
    expect(user).toEqual({ name: "ann", group: "1001", uid: 1000, home: "/home/ann", viaSudo: true });
    expect(getent.calls()).toEqual(["passwd ann"]);
  });

  it("otherwise it is whoever runs the command", async () => {
    const user = await serviceUser({
      forSystemUnit: false,
      env: { SUDO_USER: "ann" },
      whoami: { username: "root", uid: 0, gid: 0 },
      home: "/root",
      runner: () => Promise.reject(new Error("not called")),
    });
    expect(user).toEqual({ name: "root", group: "0", uid: 0, home: "/root", viaSudo: false });
  });
});
