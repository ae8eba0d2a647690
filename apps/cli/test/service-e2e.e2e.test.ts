import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtCli, CleanupScope, type FakeRouter, spawnApp, startFakeRouter } from "@phonework/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitCommandLine } from "../src/service/systemd-quote.ts";
import { parseUnitFile, type UnitFile } from "../src/service/systemd-unit.ts";
import { canVerifyUnits, verifyUnit } from "./systemd-analyze.ts";

// `phonework service install host --print` as a user runs it, and the unit it prints run the way
// systemd would run it: its ExecStart, parsed back, with only its Environment= and in its
// WorkingDirectory=. systemd itself is not PID 1 here, so the restart after a kill is shown in two
// halves: the exits a real host makes (SIGKILL, SIGTERM, a bad config) and systemd's documented
// Restart= rules applied to the unit's settings.

const SECRET = "service-e2e-secret";
const scope = new CleanupScope();
let router: FakeRouter;
let home: string;
let unit: UnitFile;
let brokenUnit: UnitFile;
let printed: string;

/** Prints the unit for a config through the real CLI (tsx, as the package scripts run it). */
async function printUnit(config: string): Promise<string> {
  const cli = scope.track(
    spawnApp("service", { HOME: home, XDG_CONFIG_HOME: "", PHONEWORK_CONFIG: "" }, [
      "install",
      "host",
      "--print",
      "--config",
      config,
    ]),
  );
  const { code } = await cli.exited;
  expect({ code, stderr: cli.stderr() }).toEqual({ code: 0, stderr: "" });
  return cli.stdout();
}

beforeAll(async () => {
  router = await startFakeRouter({ secret: SECRET });
  scope.add(() => router.close());
  home = join(scope.tempDir(), "home of ann"); // a space: every path in the unit must be quoted
  const configDir = join(home, "phonework config");
  mkdirSync(join(home, "work"), { recursive: true });
  mkdirSync(configDir);
  const config = join(configDir, "host.yaml");
  writeFileSync(
    config,
    [
      `ROUTER_URL: ${router.url}`,
      `ROUTER_SECRET: ${SECRET}`,
      "NODE_ID: service-host",
      `DATA_DIR: ${join(home, "data")}`,
      `WORKING_DIR: ${join(home, "work")}`,
      "RECONNECT_MAX_DELAY_S: 0.3",
      "",
    ].join("\n"),
  );
  const broken = join(configDir, "broken.yaml");
  writeFileSync(broken, "ROUTER_URL: http://not-a-websocket\n");
  const [good, bad] = await Promise.all([printUnit(config), printUnit(broken)]);
  printed = good;
  unit = parseUnitFile(good);
  brokenUnit = parseUnitFile(bad);
});
afterAll(() => scope.run());

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Starts the unit's ExecStart as systemd would: its argv, only its environment, its directory. */
function startUnit(from: UnitFile): { child: ChildProcess; exited: Promise<Exit>; stderr: () => string } {
  const argv = splitCommandLine(from.get("Service", "ExecStart") ?? "");
  // Environment= has no $-expansion, but PATH holds no `$`, so the same splitter reads it.
  const [assignment = ""] = splitCommandLine(from.get("Service", "Environment") ?? "");
  const [name, ...value] = assignment.split("=");
  const [program = "", ...args] = argv;
  const child = spawn(program, args, {
    cwd: from.get("Service", "WorkingDirectory"),
    env: { HOME: home, [name as string]: value.join("=") }, // systemd adds HOME, USER… for a user unit
    stdio: ["ignore", "pipe", "pipe"],
  });
  scope.add(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<Exit>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => err };
}

/**
 * systemd.service(5), table "Exit causes and the effect of the Restart= settings", with its rules:
 * exit code 0 and SIGHUP, SIGINT, SIGTERM, SIGPIPE are clean; RestartPreventExitStatus= wins over
 * Restart=. (A `systemctl stop` never restarts; that is not an exit cause here.)
 */
const RESTARTS_ON: Record<string, readonly string[]> = {
  no: [],
  always: ["clean", "unclean exit code", "unclean signal"],
  "on-success": ["clean"],
  "on-failure": ["unclean exit code", "unclean signal"],
  "on-abnormal": ["unclean signal"],
  "on-abort": ["unclean signal"],
  "on-watchdog": [],
};
const CLEAN_SIGNALS = ["SIGHUP", "SIGINT", "SIGTERM", "SIGPIPE"];

function systemdRestarts(
  from: UnitFile,
  exit: Exit,
  restart = from.get("Service", "Restart") ?? "no",
): boolean {
  const prevented = (from.get("Service", "RestartPreventExitStatus") ?? "").split(/\s+/);
  if (prevented.includes(String(exit.code ?? exit.signal))) return false;
  const cause = exit.signal
    ? CLEAN_SIGNALS.includes(exit.signal)
      ? "clean"
      : "unclean signal"
    : exit.code === 0
      ? "clean"
      : "unclean exit code";
  return (RESTARTS_ON[restart] ?? []).includes(cause);
}

describe("phonework service install host", () => {
  it("prints a unit that runs this node, the built phonework it was installed with, and the config", () => {
    const argv = splitCommandLine(unit.get("Service", "ExecStart") ?? "");
    expect(argv[0]).toBe(process.execPath);
    expect(argv.slice(1)).toEqual([
      realpathSync(builtCli),
      "host",
      "--config",
      join(home, "phonework config", "host.yaml"),
    ]);
    expect(unit.get("Service", "WorkingDirectory")).toBe(home);
    expect(unit.get("Service", "Environment")).toMatch(/^"PATH=.+"$/);
    expect(printed).toMatch(/^# phonework-host.service: printed only, nothing was changed.\n/);
  });

  it("ends with what it will run in plain lines: the command, the router, the working and data folders", () => {
    const tail = printed.slice(printed.indexOf("\nIt will run: "));
    expect(tail).toMatch(/^\nIt will run: \S+ .* host --config .*host\.yaml"?\n/);
    expect(tail).toContain(`\n  router: ${router.url}\n`);
    expect(tail).toContain(`\n  working folder: ${join(home, "work")}\n`);
    expect(tail).toContain(`\n  data folder: ${join(home, "data")}\n`);
    for (const line of tail.trim().split("\n")) expect(line.startsWith("#")).toBe(false);
  });

  it.runIf(canVerifyUnits)("systemd-analyze verify accepts it (the unit, before the plain lines)", () => {
    const dir = scope.tempDir();
    const file = join(dir, "phonework-host.service");
    writeFileSync(file, printed.slice(0, printed.indexOf("\nIt will run: ") + 1));
    expect(verifyUnit(file)).toEqual({ status: 0, output: "" });
  });

  it("keeps the host up across a kill: its command line starts a host, and every way it dies is restarted", async () => {
    const before = router.registrations.length;
    const first = startUnit(unit);
    await router.waitForRegistrations(before + 1, 15_000);
    expect(router.registrations.at(-1)?.node_id).toBe("service-host");
    first.child.kill("SIGKILL");
    const killed = await first.exited;
    expect(killed).toEqual({ code: null, signal: "SIGKILL" });
    expect(systemdRestarts(unit, killed)).toBe(true);

    // What systemd does RestartSec later: the same command line, on the same DATA_DIR (its lock is stale).
    const registered = router.registrations.length;
    const second = startUnit(unit);
    await router.waitForRegistrations(registered + 1, 15_000);
    second.child.kill("SIGTERM");
    const terminated = await second.exited;
    expect(terminated, second.stderr()).toEqual({ code: 0, signal: null }); // the host stops cleanly
    expect(systemdRestarts(unit, terminated)).toBe(true);
    // Why Restart=always: with on-failure a plain `kill` would leave the host down.
    expect(systemdRestarts(unit, terminated, "on-failure")).toBe(false);
  });

  it("a config error exits 2, which the unit does not restart (no loop)", async () => {
    const broken = startUnit(brokenUnit);
    const exit = await broken.exited;
    expect(exit).toEqual({ code: 2, signal: null });
    expect(broken.stderr()).toMatch(/ROUTER_URL: must be a ws:\/\/ or wss:\/\/ URL/);
    expect(systemdRestarts(brokenUnit, exit)).toBe(false);
    expect(systemdRestarts(brokenUnit, { code: 1, signal: null })).toBe(true);
  });
});

describe("the settings a user runs with, into a service", () => {
  it("`phonework host … --save-config <file>` writes them (0600, no join code); a unit with that file runs exactly them", async () => {
    const work = join(home, "saved work");
    const data = join(home, "saved data");
    mkdirSync(work, { recursive: true });
    const saved = join(home, "saved host.yaml");
    const args = [
      "--router-url",
      router.url,
      "--working-dir",
      work,
      "--data-dir",
      data,
      "--node-id",
      "saved-host",
    ];
    const before = router.registrations.length;
    const ran = scope.track(
      spawnApp(
        "host",
        { HOME: home, ROUTER_SECRET: SECRET, PHONEWORK_CONFIG: "", RECONNECT_MAX_DELAY_S: "0.3" },
        [...args, "--save-config", saved],
      ),
    );
    await router.waitForRegistrations(before + 1, 15_000);
    expect(router.registrations.at(-1)?.node_id).toBe("saved-host");
    ran.kill("SIGTERM");
    await ran.exited;
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    const text = readFileSync(saved, "utf8");
    expect(text).toContain(`ROUTER_URL: ${router.url}`);
    expect(text).toContain(`ROUTER_SECRET: ${SECRET}`); // from the environment: the service has none
    expect(text).not.toMatch(/^JOIN_CODE:/m);

    // The unit for that file starts the same host, with nothing from this shell but PATH.
    const fromFile = parseUnitFile(await printUnit(saved));
    const again = startUnit(fromFile);
    await router.waitForRegistrations(before + 2, 15_000);
    expect(router.registrations.at(-1)?.node_id).toBe("saved-host");
    again.child.kill("SIGTERM");
    await again.exited;
  });

  it("`service install host` takes the host's own flags and bakes them in; one of another program is refused", async () => {
    const work = join(home, "work");
    const cli = scope.track(
      spawnApp("service", { HOME: home, XDG_CONFIG_HOME: "", PHONEWORK_CONFIG: "" }, [
        ...["install", "host", "--print", "--router-url", "wss://router.example/ws/node"],
        ...["--working-dir", work, "--node-id", "flag-host"],
      ]),
    );
    expect((await cli.exited).code).toBe(0);
    const argv = splitCommandLine(parseUnitFile(cli.stdout()).get("Service", "ExecStart") ?? "");
    expect(argv.slice(2)).toEqual([
      ...["host", "--working-dir", work, "--router-url", "wss://router.example/ws/node"],
      ...["--node-id", "flag-host"],
    ]);
    expect(cli.stdout()).toContain("\n  router: wss://router.example/ws/node\n");
    expect(cli.stdout()).toContain(`\n  working folder: ${work}\n`);

    const wrong = scope.track(
      spawnApp("service", { HOME: home }, ["install", "router", "--print", "--router-url", "x"]),
    );
    expect((await wrong.exited).code).toBe(2);
    expect(wrong.stderr()).toContain("--router-url: not a setting of phonework router");
  });
});
