import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostConfigFields } from "@phonework/host";
import { RouterConfigFields } from "@phonework/router";
import { builtCli, CleanupScope, captureStream, repoRoot, spawnApp, spawnProcess } from "@phonework/testkit";
import { CommanderError } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { buildCli } from "../src/cli.ts";

const scope = new CleanupScope();
afterEach(() => scope.run());

/** `phonework …args` in this process: what it printed and how it ended. */
async function cli(...args: string[]): Promise<{ out: string; err: string; exitCode: number | undefined }> {
  const out = captureStream(false);
  const err = captureStream(false);
  let exitCode: number | undefined;
  const program = buildCli({
    stdout: out.stream,
    stderr: err.stream,
    setExitCode: (code) => (exitCode = code),
  });
  try {
    await program.parseAsync(["node", "phonework", ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    exitCode = error.exitCode;
  }
  return { out: out.output(), err: err.output(), exitCode };
}

const manifestVersion = (
  JSON.parse(readFileSync(join(repoRoot, "apps/cli/package.json"), "utf8")) as { version: string }
).version;

describe("phonework", () => {
  it("--help names every subcommand; --version and -v print the package version", async () => {
    const help = await cli("--help");
    expect(help.exitCode).toBe(0);
    for (const command of ["standalone", "router", "host", "pair", "doctor", "service"])
      expect(help.out).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    expect((await cli("--version")).out).toBe(`${manifestVersion}\n`);
    expect((await cli("-v")).out).toBe(`${manifestVersion}\n`);
  });

  it("each subcommand has --help with its flags and the precedence rule", async () => {
    const flags: Record<string, string[]> = {
      standalone: ["--config", "--data-dir", "--working-dir", "--node-id"],
      router: ["--config", "--data-dir"],
      host: ["--config", "--data-dir", "--working-dir", "--router-url", "--join", "--node-id"],
      pair: ["--owner", "--data-dir"],
      doctor: ["--offline", "--router-url"],
    };
    for (const [command, expected] of Object.entries(flags)) {
      const { out, exitCode } = await cli(command, "--help");
      expect(exitCode, command).toBe(0);
      for (const flag of expected) expect(out, `${command} ${flag}`).toContain(flag);
      expect(out, command).toContain("a flag, the environment (KEY=value), the --config file");
    }
    for (const action of ["install", "uninstall", "status"]) {
      const { out, exitCode } = await cli("service", action, "--help");
      expect(exitCode).toBe(0);
      expect(out).toContain("--system");
    }
  });

  it("usage errors exit 2 with a sentence: unknown command, unknown flag, a missing or wrong argument", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["serve"], /unknown command 'serve'/],
      [["host", "--joni", "x"], /unknown option '--joni'/],
      [["pair"], /missing required argument 'name'/],
      [["service", "install", "database"], /'database' is invalid.*router, host, standalone/],
      [["host", "--join"], /option '--join <code>' argument missing/],
    ];
    for (const [args, message] of cases) {
      const { err, exitCode } = await cli(...args);
      expect(exitCode, args.join(" ")).toBe(1); // commander's code; main.ts turns every usage error into 2
      expect(err, args.join(" ")).toMatch(message);
    }
  });
});

describe("phonework (its own process)", () => {
  it("a usage error exits 2; a bad flag value exits 2 naming the key it sets", async () => {
    const usage = scope.track(spawnApp("host", {}, ["--joni", "x"]));
    expect((await usage.exited).code).toBe(2);
    expect(usage.stderr()).toContain("unknown option '--joni'");
    const bad = scope.track(spawnApp("host", { ROUTER_SECRET: "s" }, ["--node-id", "bad id!"]));
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(/NODE_ID: may only contain/);
  });

  it("precedence: --data-dir beats DATA_DIR in the environment, which beats the --config file", async () => {
    const [fromFlag, fromEnv, fromFile] = [scope.tempDir(), scope.tempDir(), scope.tempDir()];
    const config = join(scope.tempDir(), "router.yaml");
    writeFileSync(config, `DATA_DIR: ${fromFile}\nALLOWED_USERS: [me]\n`);
    // `pair` writes router/router.db into the DATA_DIR it resolved, and exits.
    const pair = async (env: Record<string, string>, args: string[]) => {
      const run = scope.track(
        spawnApp("pair", { LOG_LEVEL: "warn", ...env }, ["home-pc", "--config", config, ...args]),
      );
      expect((await run.exited).code, run.stderr()).toBe(0);
    };
    await pair({ DATA_DIR: fromEnv }, ["--data-dir", fromFlag]);
    expect([fromFlag, fromEnv, fromFile].map((dir) => existsSync(join(dir, "router", "router.db")))).toEqual([
      true,
      false,
      false,
    ]);
    await pair({ DATA_DIR: fromEnv }, []);
    expect(existsSync(join(fromEnv, "router", "router.db"))).toBe(true);
    expect(existsSync(join(fromFile, "router", "router.db"))).toBe(false);
    await pair({ DATA_DIR: "" }, []);
    expect(existsSync(join(fromFile, "router", "router.db"))).toBe(true);
  });
});

describe("--help of the built phonework: the platforms it serves and its configuration keys", () => {
  const knownKeys = new Set([
    ...Object.keys(RouterConfigFields.shape),
    ...Object.keys(HostConfigFields.shape),
  ]);
  /** Upper-case words in help texts that are not configuration keys. */
  const notKeys = new Set(["PHONEWORK_CONFIG", "KEY", "VPS", "PC", "YAML", "URL"]);
  const help = async (...args: string[]) => {
    const run = scope.track(spawnProcess(process.execPath, [builtCli, ...args, "--help"]));
    expect((await run.exited).code, `${args.join(" ")} --help: ${run.stderr()}`).toBe(0);
    return run.stdout();
  };
  const commands: Array<{ args: string[]; keys: string[] }> = [
    { args: [], keys: ["TELEGRAM_BOT_TOKEN", "FEISHU_APP_ID"] },
    {
      args: ["standalone"],
      keys: ["TELEGRAM_BOT_TOKEN", "WORKING_DIR", "OPENAI_API_KEY", "CHAT", "ALLOWED_USERS"],
    },
    {
      args: ["router"],
      keys: [
        "TELEGRAM_BOT_TOKEN",
        "FEISHU_APP_ID",
        "ALLOWED_USERS",
        "ADMINS",
        "ROUTER_PORT",
        "PUBLIC_URL",
        "TRUST_PROXY",
      ],
    },
    { args: ["host"], keys: ["ROUTER_URL", "JOIN_CODE", "ROUTER_CA_FILE", "WORKING_DIR", "OPENAI_API_KEY"] },
    { args: ["pair"], keys: ["DATA_DIR", "ADMINS", "ALLOWED_USERS", "JOIN_CODE_TTL_S"] },
    { args: ["doctor"], keys: ["TELEGRAM_BOT_TOKEN", "FEISHU_APP_ID"] },
    { args: ["service"], keys: ["ROUTER_URL", "WORKING_DIR", "TELEGRAM_BOT_TOKEN"] },
    { args: ["service", "install"], keys: ["ROUTER_URL", "ALLOWED_USERS"] },
  ];

  it("every command names the chat platforms that exist, its main keys, and where every key is", async () => {
    const texts = await Promise.all(commands.map(({ args }) => help(...args)));
    commands.forEach(({ args, keys }, index) => {
      const text = texts[index] ?? "";
      const name = `phonework ${args.join(" ")} --help`;
      expect(text, name).toContain("docs/configuration-keys.md");
      for (const platform of ["Telegram", "Feishu", "Slack", "Discord", "web console", "terminal"])
        expect(text, `${name}: ${platform}`).toContain(platform);
      expect(text, name).not.toMatch(/\b(WhatsApp|Matrix|Teams)\b/);
      expect(text, name).not.toContain("(Feishu), else");
      for (const key of keys) expect(text, `${name}: ${key}`).toMatch(new RegExp(`\\b${key}\\b`));
      // Every key it names is one the programs read (a renamed key fails here).
      const named = [...text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]{3,}\b/g)].map((m) => m[0]);
      expect(
        named.filter((word) => !knownKeys.has(word) && !notKeys.has(word)),
        name,
      ).toEqual([]);
    });
  });
});
