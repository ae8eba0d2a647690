import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CleanupScope, captureStream } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { AppName } from "../src/programs/app-name.ts";
import { processRunner } from "../src/service/command-runner.ts";
import { type ServiceDeps, type ServiceOptions, serviceCommand } from "../src/service/service-command.ts";
import { settingsOf } from "../src/service/service-settings.ts";
import type { WhoAmI } from "../src/service/service-user.ts";
import { writeFakeCommand } from "./fake-command.ts";

// The installers against fake systemctl, launchctl and getent executables on PATH: real child
// processes, real files in a temp home.

const scope = new CleanupScope();
afterEach(() => scope.run());

interface Machine {
  home: string;
  bin: string;
  deps: ServiceDeps;
  config: string;
  entry: string;
  /** Runs `phonework service <action> <app>` with these flags; its exit code and output. */
  service(
    action: ServiceOptions["action"],
    flags?: Partial<Pick<ServiceOptions, "system" | "printOnly" | "configPath" | "flags">> & {
      app?: AppName;
      overrides?: Record<string, string>;
    },
  ): Promise<{ code: number; output: string }>;
}

function machine(
  platform: NodeJS.Platform,
  options: { systemd?: boolean; whoami?: WhoAmI; env?: Record<string, string> } = {},
): Machine {
  const root = scope.tempDir();
  const home = join(root, "home dir");
  const bin = join(root, "bin");
  const entry = join(root, "pkg", "phonework.js");
  const config = join(home, "host.yaml");
  for (const dir of [home, bin, join(root, "pkg"), join(root, "run-systemd")])
    mkdirSync(dir, { recursive: true });
  writeFileSync(entry, "");
  writeFileSync(config, "");
  const env = { ...options.env, PATH: `${bin}:${process.env.PATH}` };
  const deps: ServiceDeps = {
    platform,
    execPath: process.execPath,
    entry,
    cwd: home,
    home,
    whoami: () => options.whoami ?? { username: "ann", uid: 1000, gid: 1000 },
    runner: processRunner(env),
    systemdRunDir: join(root, options.systemd === false ? "no-systemd" : "run-systemd"),
    systemUnitDir: join(root, "etc", "systemd", "system"),
    settingsOf,
  };
  return {
    home,
    bin,
    deps,
    config,
    entry,
    async service(action, flags = {}) {
      const out = captureStream(false);
      const code = await serviceCommand(
        {
          action,
          app: flags.app ?? "host",
          flags: flags.flags ?? [],
          args: { overrides: flags.overrides ?? {} },
          configPath: flags.configPath,
          system: flags.system ?? false,
          printOnly: flags.printOnly ?? false,
          env,
          out: out.stream,
        },
        deps,
      );
      return { code, output: out.output() };
    },
  };
}

const SYSTEMCTL = `
  *is-active*) echo active ;;
  *is-enabled*) echo enabled ;;`;

describe("systemd user unit", () => {
  it("install writes the unit, reloads, enables and restarts it, and hints at lingering", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(m.bin, "systemctl", SYSTEMCTL);
    const { code, output } = await m.service("install", { configPath: "host.yaml" });
    expect(code).toBe(0);
    const file = join(m.home, ".config", "systemd", "user", "phonework-host.service");
    expect(readFileSync(file, "utf8")).toContain(
      `ExecStart=${process.execPath} ${m.entry} host --config "${m.config}"`,
    );
    expect(systemctl.calls()).toEqual([
      "--user show-environment",
      "--user daemon-reload",
      "--user enable phonework-host.service",
      "--user restart phonework-host.service",
    ]);
    expect(output).toContain(`wrote ${file}\n`);
    expect(output).toContain("ran systemctl --user restart phonework-host.service\n");
    expect(output).toContain("logs: journalctl --user -u phonework-host.service -f\n");
    expect(output).toMatch(
      /^installed: phonework-host.service restarts 5 s after any exit but a config error/m,
    );
    expect(output).toContain(
      "hint: `loginctl enable-linger ann` keeps it running while you are logged out\n",
    );
  });

  it("status: one line per fact, exit 0 when active", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(m.bin, "systemctl", SYSTEMCTL);
    await m.service("install", { configPath: m.config });
    const { code, output } = await m.service("status");
    expect(code).toBe(0);
    expect(output).toBe(
      [
        `installed: ${join(m.home, ".config", "systemd", "user", "phonework-host.service")}`,
        `runs: ${process.execPath} ${m.entry} host --config '${m.config}'`,
        `config: ${m.config}`,
        "enabled: enabled",
        "active: active",
        "",
      ].join("\n"),
    );
    expect(systemctl.calls().slice(-2)).toEqual([
      "--user is-enabled phonework-host.service",
      "--user is-active phonework-host.service",
    ]);
  });

  it("status: exit 3 when not installed or not running", async () => {
    const m = machine("linux");
    writeFakeCommand(m.bin, "systemctl", `*is-active*) echo failed; exit 3 ;;`);
    expect(await m.service("status")).toEqual({
      code: 3,
      output: `installed: no (no ${join(m.home, ".config", "systemd", "user", "phonework-host.service")})\n`,
    });
    await m.service("install");
    const { code, output } = await m.service("status");
    expect(code).toBe(3);
    expect(output).toContain("config: none (defaults and the service's environment)\n");
    expect(output).toContain("active: failed\n");
  });

  it("a failing systemctl stops the install there, says which command and why, exit 1", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(
      m.bin,
      "systemctl",
      `*enable*) echo "Failed to enable unit: boom" >&2; exit 1 ;;`,
    );
    const { code, output } = await m.service("install");
    expect(code).toBe(1);
    expect(output).toContain(
      "failed: systemctl --user enable phonework-host.service: Failed to enable unit: boom\n",
    );
    expect(output).toMatch(/^not started: fix the above/m);
    expect(systemctl.calls()).not.toContain("--user restart phonework-host.service");
  });

  it("uninstall disables, removes and reloads; a second one has nothing to do", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(m.bin, "systemctl");
    await m.service("install");
    const file = join(m.home, ".config", "systemd", "user", "phonework-host.service");
    const before = systemctl.calls().length;
    const first = await m.service("uninstall");
    expect(first.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(systemctl.calls().slice(before)).toEqual([
      "--user show-environment",
      "--user disable --now phonework-host.service",
      "--user daemon-reload",
    ]);
    expect(first.output).toContain(`removed ${file}\n`);
    const calls = systemctl.calls().length;
    expect(await m.service("uninstall")).toEqual({
      code: 0,
      output: `not installed: there is no ${file}; nothing to do\n`,
    });
    expect(systemctl.calls().length).toBe(calls);
  });

  it("--print changes nothing and runs nothing", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(m.bin, "systemctl");
    const install = await m.service("install", { printOnly: true });
    expect(install.code).toBe(0);
    expect(install.output).toMatch(/^# phonework-host.service: printed only, nothing was changed.\n/);
    expect(install.output).toContain("\n#   systemctl --user enable phonework-host.service\n");
    const uninstall = await m.service("uninstall", { printOnly: true });
    expect(uninstall.output).toContain("  systemctl --user disable --now phonework-host.service\n");
    expect(systemctl.calls()).toEqual([]);
    expect(existsSync(join(m.home, ".config"))).toBe(false);
  });

  it("without systemd it prints the unit and the steps, installs nothing, exit 1", async () => {
    const m = machine("linux", { systemd: false });
    const systemctl = writeFakeCommand(m.bin, "systemctl");
    const { code, output } = await m.service("install");
    expect(code).toBe(1);
    expect(output).toMatch(/^# not installed: systemd is not running here \(no .*no-systemd\)\.\n/);
    expect(output).toContain("\n[Service]\n");
    expect(output).toContain("#   systemctl --user daemon-reload\n");
    expect(systemctl.calls()).toEqual([]);
    expect(existsSync(join(m.home, ".config"))).toBe(false);
  });

  it("when the user manager cannot be reached (no session), the same, with systemctl's reason", async () => {
    const m = machine("linux");
    writeFakeCommand(
      m.bin,
      "systemctl",
      `*show-environment*) echo "Failed to connect to bus: No medium found" >&2; exit 1 ;;`,
    );
    const { code, output } = await m.service("install");
    expect(code).toBe(1);
    expect(output).toMatch(
      /^# not installed: systemctl --user cannot reach the service manager \(Failed to connect to bus: No medium found\)\.\n/,
    );
  });

  it("a unit directory it cannot write to is one sentence, exit 1", async () => {
    const m = machine("linux");
    writeFakeCommand(m.bin, "systemctl");
    writeFileSync(join(m.home, ".config"), ""); // a file where ~/.config/ should be
    const { code, output } = await m.service("install");
    expect(code).toBe(1);
    expect(output).toMatch(/\nphonework service: cannot write .*phonework-host.service \(ENOTDIR\)\n$/);
  });

  it("a config file that is not there is a usage error, exit 2, before anything is written", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(m.bin, "systemctl");
    expect(await m.service("install", { configPath: "missing.yaml" })).toEqual({
      code: 2,
      output: `phonework service: config file ${join(m.home, "missing.yaml")} does not exist\n`,
    });
    expect(systemctl.calls()).toEqual([]);
  });
});

describe("systemd system unit", () => {
  it("--system under sudo: no --user, a unit in the system directory that runs as SUDO_USER", async () => {
    const m = machine("linux", {
      whoami: { username: "root", uid: 0, gid: 0 },
      env: { SUDO_USER: "ann", SUDO_GID: "1000" },
    });
    const systemctl = writeFakeCommand(m.bin, "systemctl");
    writeFakeCommand(m.bin, "getent", `"passwd ann") echo 'ann:x:1000:1000:Ann:/home/ann:/bin/bash' ;;`);
    const { code, output } = await m.service("install", { system: true, app: "router" });
    expect(code).toBe(0);
    const text = readFileSync(join(m.deps.systemUnitDir, "phonework-router.service"), "utf8");
    expect(text).toContain("\nWorkingDirectory=/home/ann\nUser=ann\nGroup=1000\n");
    expect(text).toContain("\nWantedBy=multi-user.target\n");
    expect(systemctl.calls()).toEqual([
      "show-environment",
      "daemon-reload",
      "enable phonework-router.service",
      "restart phonework-router.service",
    ]);
    expect(output).toContain(
      `note: PATH is sudo's; to bake in yours: sudo env "PATH=$PATH" phonework service install router --system\n`,
    );
    expect(output).not.toContain("enable-linger");
  });

  it("--system without root says so before systemctl could ask for a password, exit 1", async () => {
    const m = machine("linux");
    const systemctl = writeFakeCommand(m.bin, "systemctl");
    const { code, output } = await m.service("install", { system: true });
    expect(code).toBe(1);
    expect(output).toMatch(
      /\nphonework service: a system unit needs root: sudo env "PATH=\$PATH" phonework service install host --system\n$/,
    );
    expect(systemctl.calls()).toEqual(["show-environment"]);
    expect(existsSync(m.deps.systemUnitDir)).toBe(false);
  });
});

describe("launchd agent", () => {
  const LAUNCHCTL = `
  "print gui/1000") ;;
  "print gui/1000/com.phonework.host") printf '\\tstate = running\\n\\tpid = 4242\\n' ;;`;

  it("install writes the plist and bootstraps it into the GUI domain", async () => {
    const m = machine("darwin");
    const launchctl = writeFakeCommand(m.bin, "launchctl", LAUNCHCTL);
    const { code, output } = await m.service("install", { configPath: m.config });
    expect(code).toBe(0);
    const file = join(m.home, "Library", "LaunchAgents", "com.phonework.host.plist");
    expect(readFileSync(file, "utf8")).toContain(`<string>${m.config}</string>`);
    expect(existsSync(join(m.home, "Library", "Logs", "phonework"))).toBe(true);
    expect(launchctl.calls()).toEqual([
      "print gui/1000",
      "bootout gui/1000/com.phonework.host",
      "enable gui/1000/com.phonework.host",
      `bootstrap gui/1000 ${file}`,
    ]);
    expect(output).toContain(`logs: ${join(m.home, "Library", "Logs", "phonework", "host.log")}\n`);
  });

  it("status reads the plist back and asks launchctl", async () => {
    const m = machine("darwin");
    writeFakeCommand(m.bin, "launchctl", LAUNCHCTL);
    await m.service("install", { configPath: m.config });
    const { code, output } = await m.service("status");
    expect(code).toBe(0);
    expect(output).toContain(`config: ${m.config}\n`);
    expect(output).toContain("active: running (pid 4242)\n");
  });

  it("uninstall boots it out and removes the plist", async () => {
    const m = machine("darwin");
    const launchctl = writeFakeCommand(m.bin, "launchctl", LAUNCHCTL);
    await m.service("install");
    const { code } = await m.service("uninstall");
    expect(code).toBe(0);
    expect(existsSync(join(m.home, "Library", "LaunchAgents", "com.phonework.host.plist"))).toBe(false);
    expect(launchctl.calls().slice(-2)).toEqual([
      "print gui/1000/com.phonework.host",
      "bootout gui/1000/com.phonework.host",
    ]);
  });

  it("without a GUI session (ssh) it prints the plist and the steps, exit 1", async () => {
    const m = machine("darwin");
    writeFakeCommand(
      m.bin,
      "launchctl",
      `"print gui/1000") echo "Could not find domain for user gui: 1000" >&2; exit 113 ;;`,
    );
    const { code, output } = await m.service("install");
    expect(code).toBe(1);
    expect(output).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<!--\n {2}not installed: launchctl has no gui\/1000 domain/,
    );
    expect(output).toContain("launchctl bootstrap gui/1000 ");
  });

  it("--system is refused: only a user agent is supported", async () => {
    const m = machine("darwin");
    expect(await m.service("install", { system: true })).toEqual({
      code: 2,
      output:
        "phonework service: on macOS only a launchd agent for this user is supported: run it without --system\n",
    });
  });
});

describe("Windows", () => {
  it("prints NSSM steps with the command line, exit 1 (0 with --print)", async () => {
    const m = machine("win32");
    const { code, output } = await m.service("install", { configPath: m.config });
    expect(code).toBe(1);
    expect(output).toContain(
      `nssm install phonework-host ${process.execPath} ${m.entry} host --config "${m.config}"\n`,
    );
    expect(output).toContain("nssm set phonework-host AppExit 2 Exit\n");
    expect((await m.service("status", { printOnly: true })).code).toBe(0);
  });
});
