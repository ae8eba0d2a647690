import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "@phonework/runtime";
import { makeTempDir } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { adapterSpecs } from "../src/config/adapter-specs.ts";
import { RouterConfigSchema } from "../src/config/router-config.ts";

// Chat adapters from the config: named under `adapters:`, or the flat FEISHU_* / TELEGRAM_* shorthand,
// each with who may use it; ALLOWED_USERS and ADMINS qualified by adapter name.

const feishu = { FEISHU_APP_ID: "cli_app", FEISHU_APP_SECRET: "app-secret" };
const telegram = { TELEGRAM_BOT_TOKEN: "123:abc" };
const tg = { type: "telegram", bot_token: "456:def" };

const specs = (keys: Record<string, unknown>) => adapterSpecs(RouterConfigSchema.parse(keys));

/** The schema's problems, as the loader prints them ("KEY: message"). */
function schemaProblems(keys: Record<string, unknown>): string[] {
  const parsed = RouterConfigSchema.safeParse(keys);
  return (parsed.error?.issues ?? []).map((issue) => `${issue.path.join(".")}: ${issue.message}`);
}

/** The ConfigError adapterSpecs throws, one "KEY: message" per line. */
function specProblems(keys: Record<string, unknown>): string[] {
  try {
    specs(keys);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const [heading, ...lines] = (error as Error).message.split("\n");
    expect(heading).toBe("invalid configuration:");
    return lines.map((line) => line.trim());
  }
  throw new Error("expected a ConfigError");
}

describe("flat keys", () => {
  it("Feishu only: an adapter named feishu; the only allowed user is its admin", () => {
    expect(specs({ ...feishu, ALLOWED_USERS: "ou_abc" })).toEqual([
      {
        name: "feishu",
        type: "feishu",
        settings: { appId: "cli_app", appSecret: "app-secret", domain: "feishu", mode: "ws" },
        access: { admins: ["feishu:ou_abc"], dm: ["feishu:ou_abc"] },
      },
    ]);
  });

  it("Feishu webhook carries its secrets; the existing messages are kept", () => {
    const webhook = {
      ...feishu,
      FEISHU_MODE: "webhook",
      FEISHU_ENCRYPT_KEY: "ek",
      FEISHU_VERIFICATION_TOKEN: "vt",
    };
    expect(specs(webhook)[0]?.settings).toEqual({
      appId: "cli_app",
      appSecret: "app-secret",
      domain: "feishu",
      mode: "webhook",
      encryptKey: "ek",
      verificationToken: "vt",
    });
    expect(schemaProblems({ ...feishu, FEISHU_MODE: "webhook", FEISHU_ENCRYPT_KEY: "ek" })).toEqual([
      expect.stringMatching(
        /^FEISHU_ENCRYPT_KEY, FEISHU_VERIFICATION_TOKEN: both are required with FEISHU_MODE=webhook.*missing: FEISHU_VERIFICATION_TOKEN/,
      ),
    ]);
    expect(specProblems({ FEISHU_APP_ID: "cli_app" })).toEqual([
      "FEISHU_APP_SECRET: is required with FEISHU_APP_ID",
    ]);
  });

  it("Telegram only: an adapter named telegram, polling by default", () => {
    expect(specs({ ...telegram, ALLOWED_USERS: "123456", ADMINS: "123456" })).toEqual([
      {
        name: "telegram",
        type: "telegram",
        settings: { botToken: "123:abc", mode: "polling" },
        access: { admins: ["telegram:123456"], dm: ["telegram:123456"] },
      },
    ]);
  });

  it("Telegram webhook: secret, URL and API root", () => {
    const [spec] = specs({
      ...telegram,
      TELEGRAM_MODE: "webhook",
      TELEGRAM_WEBHOOK_SECRET: "s3cret_-X",
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/webhook/telegram",
      TELEGRAM_API_ROOT: "http://127.0.0.1:8081",
    });
    expect(spec?.settings).toEqual({
      botToken: "123:abc",
      mode: "webhook",
      secret: "s3cret_-X",
      url: "https://bot.example.com/webhook/telegram",
      apiRoot: "http://127.0.0.1:8081",
    });
  });

  it("refuses a Telegram webhook without its secret, and malformed Telegram values, naming each key", () => {
    expect(schemaProblems({ ...telegram, TELEGRAM_MODE: "webhook" })).toEqual([
      expect.stringMatching(
        /^TELEGRAM_WEBHOOK_SECRET: is required with TELEGRAM_MODE=webhook, so that only Telegram/,
      ),
    ]);
    expect(
      schemaProblems({
        TELEGRAM_BOT_TOKEN: "not a token",
        TELEGRAM_MODE: "hook",
        TELEGRAM_WEBHOOK_SECRET: "has spaces",
        TELEGRAM_API_ROOT: "ftp://x",
      }),
    ).toEqual([
      expect.stringMatching(/^TELEGRAM_BOT_TOKEN: must be a bot token from @BotFather/),
      "TELEGRAM_MODE: must be polling or webhook",
      expect.stringMatching(/^TELEGRAM_WEBHOOK_SECRET: must be 1-256 letters, digits, _ or -/),
      "TELEGRAM_API_ROOT: must be an http(s) URL",
    ]);
  });

  it("an empty TELEGRAM_BOT_TOKEN leaves Telegram off; no chat keys, no adapters", () => {
    expect(specs({ TELEGRAM_BOT_TOKEN: "" })).toEqual([]);
    // ALLOWED_USERS without any chat adapter is nobody's: nothing to qualify, nothing refused.
    expect(specs({ ALLOWED_USERS: "ou_abc" })).toEqual([]);
  });

  it("both flat: feishu then telegram, each getting the ids qualified with its name", () => {
    const result = specs({
      ...feishu,
      ...telegram,
      ALLOWED_USERS: "feishu:ou_a, telegram:1, telegram:2",
      ADMINS: "telegram:1",
    });
    expect(result.map((spec) => [spec.name, spec.type, spec.access])).toEqual([
      ["feishu", "feishu", { admins: [], dm: ["feishu:ou_a"] }],
      ["telegram", "telegram", { admins: ["telegram:1"], dm: ["telegram:1", "telegram:2"] }],
    ]);
  });
});

describe("named adapters", () => {
  it("combine with flat ones, in the file's order after them", () => {
    const result = specs({
      ...feishu,
      adapters: {
        tg: { ...tg, admins: ["123456"], dm: "everyone" },
        "feishu-work": {
          type: "feishu",
          app_id: "cli_work",
          app_secret: "work-secret",
          domain: "lark",
          mode: "webhook",
          encrypt_key: "ek",
          verification_token: "vt",
          admins: ["ou_x"],
          dm: ["ou_y"],
        },
      },
      ALLOWED_USERS: "feishu:ou_a",
    });
    expect(result).toEqual([
      {
        name: "feishu",
        type: "feishu",
        settings: { appId: "cli_app", appSecret: "app-secret", domain: "feishu", mode: "ws" },
        access: { admins: ["feishu:ou_a"], dm: ["feishu:ou_a"] },
      },
      {
        name: "tg",
        type: "telegram",
        settings: { botToken: "456:def", mode: "polling" },
        access: { admins: ["tg:123456"], dm: "everyone" },
      },
      {
        name: "feishu-work",
        type: "feishu",
        settings: {
          appId: "cli_work",
          appSecret: "work-secret",
          domain: "lark",
          mode: "webhook",
          encryptKey: "ek",
          verificationToken: "vt",
        },
        access: { admins: ["feishu-work:ou_x"], dm: ["feishu-work:ou_y"] },
      },
    ]);
  });

  it("a named adapter called like a flat one that is also set is refused, naming both", () => {
    expect(specProblems({ ...telegram, adapters: { telegram: tg } })).toEqual([
      expect.stringMatching(
        /^adapters\.telegram: clashes with TELEGRAM_BOT_TOKEN, which makes an adapter named telegram/,
      ),
    ]);
    // Without the flat keys the name is free.
    expect(specs({ adapters: { feishu: tg } }).map((spec) => [spec.name, spec.type])).toEqual([
      ["feishu", "telegram"],
    ]);
  });

  it("refuses bad and reserved names", () => {
    expect(
      schemaProblems({
        adapters: { "Bad Name": tg, "1st": tg, snake_case: tg, ["a".repeat(33)]: tg, terminal: tg },
      }),
    ).toEqual([
      "adapters.Bad Name: adapter names are lowercase letters, digits and dashes, starting with a letter (at most 32)",
      expect.stringMatching(/^adapters\.1st: adapter names are lowercase/),
      expect.stringMatching(/^adapters\.snake_case: adapter names are lowercase/),
      expect.stringMatching(/^adapters\.a{33}: adapter names are lowercase/),
      "adapters.terminal: the name terminal is reserved for the terminal chat (CHAT=terminal)",
    ]);
  });

  it("refuses a webhook without its secrets, naming the adapter's key", () => {
    expect(schemaProblems({ adapters: { tg: { ...tg, mode: "webhook" } } })).toEqual([
      expect.stringMatching(/^adapters\.tg\.webhook_secret: is required with mode webhook/),
    ]);
    expect(
      schemaProblems({ adapters: { fw: { type: "feishu", app_id: "a", app_secret: "b", mode: "webhook" } } }),
    ).toEqual([
      expect.stringMatching(/^adapters\.fw\.encrypt_key: is required with mode webhook/),
      expect.stringMatching(/^adapters\.fw\.verification_token: is required with mode webhook/),
    ]);
  });

  it("refuses unknown types, unknown keys, missing and malformed values, each under its key", () => {
    expect(
      schemaProblems({
        adapters: {
          a: { type: "irc" },
          b: { ...tg, bot_tokn: "x" },
          c: { type: "telegram" },
          d: { ...tg, dm: "some", webhook_url: "not a url" },
        },
      }),
    ).toEqual([
      "adapters.a.type: must be feishu, telegram, slack or discord",
      expect.stringMatching(
        /^adapters\.b: unknown key bot_tokn \(a telegram adapter takes type, bot_token, mode/,
      ),
      "adapters.c.bot_token: is required",
      "adapters.d.webhook_url: must be an http(s) URL",
      "adapters.d.dm: must be everyone, none, or a list of user ids",
    ]);
  });

  it("a string where the mapping belongs (as the environment would give) is refused, saying where it goes", () => {
    expect(schemaProblems({ adapters: "tg" })).toEqual([
      "adapters: must be a mapping of adapter names to their settings (set in the config file, not the environment)",
    ]);
  });

  it("the same bot or app twice is refused: both adapters would take its updates", () => {
    expect(specProblems({ ...telegram, adapters: { tg: { ...tg, bot_token: "123:other" } } })).toEqual([
      "adapters.tg.bot_token: is the same telegram bot as TELEGRAM_BOT_TOKEN: one adapter per bot",
    ]);
    expect(
      specProblems({ ...feishu, adapters: { fw: { type: "feishu", app_id: "cli_app", app_secret: "s" } } }),
    ).toEqual(["adapters.fw.app_id: is the same feishu app as FEISHU_APP_ID: one adapter per bot"]);
  });
});

describe("access", () => {
  it("a bare ALLOWED_USERS id goes to the only adapter; with two it is ambiguous, naming the key", () => {
    expect(specs({ adapters: { tg }, ALLOWED_USERS: "7" })[0]?.access.dm).toEqual(["tg:7"]);
    expect(specProblems({ ...feishu, ...telegram, ALLOWED_USERS: "ou_abc, telegram:1" })).toEqual([
      'ALLOWED_USERS: "ou_abc" is ambiguous with several chat adapters (feishu, telegram); write feishu:ou_abc or telegram:ou_abc',
    ]);
    expect(specProblems({ ...feishu, ...telegram, ADMINS: "ou_abc" })).toEqual([
      expect.stringMatching(/^ADMINS: "ou_abc" is ambiguous/),
    ]);
  });

  it("a qualified id naming an adapter that does not exist is refused, naming the key", () => {
    expect(specProblems({ ...feishu, ALLOWED_USERS: "tg:1" })).toEqual([
      expect.stringMatching(/^ALLOWED_USERS: "tg:1" names no chat adapter "tg" \(the adapters are feishu\)/),
    ]);
    expect(specProblems({ adapters: { tg: { ...tg, dm: ["feishu:ou_a"] } }, ...feishu })).toEqual([
      'adapters.tg.dm: "feishu:ou_a" is an id of adapter feishu, not of tg',
    ]);
  });

  it("every problem at once, one line each", () => {
    expect(
      specProblems({
        ...feishu,
        ...telegram,
        ALLOWED_USERS: "a, slack:b",
        ADMINS: "c",
        adapters: { telegram: tg },
      }),
    ).toEqual([
      expect.stringMatching(/^adapters\.telegram: clashes/),
      expect.stringMatching(/^ALLOWED_USERS: "a" is ambiguous/),
      expect.stringMatching(/^ALLOWED_USERS: "slack:b" names no chat adapter/),
      expect.stringMatching(/^ADMINS: "c" is ambiguous/),
    ]);
  });

  it("dm: none by default (only admins), everyone, or a list; own lists and ALLOWED_USERS add up", () => {
    const result = specs({
      adapters: {
        a: { ...tg, bot_token: "1:a", admins: ["9"] },
        b: { ...tg, bot_token: "2:b", dm: "everyone" },
        c: { ...tg, bot_token: "3:c", dm: ["5"] },
        d: { ...tg, bot_token: "4:d", dm: "none" },
      },
      ALLOWED_USERS: "c:6, d:7",
      ADMINS: "a:8",
    });
    expect(Object.fromEntries(result.map((spec) => [spec.name, spec.access]))).toEqual({
      a: { admins: ["a:9", "a:8"], dm: "none" },
      b: { admins: [], dm: "everyone" },
      c: { admins: [], dm: ["c:5", "c:6"] },
      d: { admins: [], dm: ["d:7"] },
    });
  });

  it("ALLOWED_USERS=* opens every adapter; the sole-user admin rule needs exactly one real user", () => {
    const result = specs({ ...feishu, adapters: { tg }, ALLOWED_USERS: "*" });
    expect(result.map((spec) => spec.access)).toEqual([
      { admins: [], dm: "everyone" },
      { admins: [], dm: "everyone" },
    ]);
    // ADMINS set: the one allowed user is not made an admin besides.
    expect(specs({ ...feishu, ALLOWED_USERS: "ou_a", ADMINS: "ou_b" })[0]?.access).toEqual({
      admins: ["feishu:ou_b"],
      dm: ["feishu:ou_a"],
    });
    // Two allowed users, no ADMINS: no admin (as today).
    expect(specs({ ...feishu, ALLOWED_USERS: "ou_a, ou_b" })[0]?.access.admins).toEqual([]);
  });

  it("Telegram ids: negative numbers, and numbers as YAML reads them", () => {
    const result = specs({ adapters: { tg: { ...tg, admins: [123456], dm: [-1001234, "telegram:x"] } } });
    expect(result[0]?.access).toEqual({ admins: ["tg:123456"], dm: ["tg:-1001234", "tg:telegram:x"] });
    expect(specs({ ...telegram, ALLOWED_USERS: "-1001234" })[0]?.access.dm).toEqual(["telegram:-1001234"]);
  });

  it("ids with colons of their own: only the part before the first one is the adapter", () => {
    const result = specs({ ...feishu, adapters: { tg }, ALLOWED_USERS: "feishu:a:b, tg:c:d:e" });
    expect(result.map((spec) => spec.access.dm)).toEqual([["feishu:a:b"], ["tg:c:d:e"]]);
  });

  it("the terminal's user may be listed, qualified, and goes to no chat adapter", () => {
    expect(specs({ ...feishu, ALLOWED_USERS: "terminal:local, ou_a" })[0]?.access.dm).toEqual([
      "feishu:ou_a",
    ]);
  });
});

describe("the config file", () => {
  const dirs: Array<{ remove: () => void }> = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove();
  });

  function loadYaml(text: string, env: Record<string, string> = {}) {
    const dir = makeTempDir();
    dirs.push(dir);
    const path = join(dir.path, "router.yaml");
    writeFileSync(path, text);
    return loadConfig(RouterConfigSchema, { configPath: path, env });
  }

  it("takes `adapters:` as a mapping, nested values and all", () => {
    const { config, unknownKeys } = loadYaml(
      [
        "FEISHU_APP_ID: cli_app",
        "FEISHU_APP_SECRET: app-secret",
        "ALLOWED_USERS: [feishu:ou_a, tg:-1001234]",
        "adapters:",
        "  tg:",
        "    type: telegram",
        '    bot_token: "123:abc"',
        "    mode: webhook",
        "    webhook_secret: s3cret",
        "    api_root: http://127.0.0.1:8081",
        '    admins: ["123456"]',
        "    dm: everyone",
        "",
      ].join("\n"),
    );
    expect(unknownKeys).toEqual([]);
    expect(config.adapters).toEqual({
      tg: {
        type: "telegram",
        bot_token: "123:abc",
        mode: "webhook",
        webhook_secret: "s3cret",
        api_root: "http://127.0.0.1:8081",
        admins: ["123456"],
        dm: "everyone",
      },
    });
    expect(adapterSpecs(config).map((spec) => [spec.name, spec.access])).toEqual([
      ["feishu", { admins: [], dm: ["feishu:ou_a"] }],
      ["tg", { admins: ["tg:123456"], dm: "everyone" }],
    ]);
  });

  it("names the nested key in the loader's message", () => {
    const attempt = () =>
      loadYaml('adapters:\n  tg:\n    type: telegram\n    bot_token: "1:a"\n    mode: webhook\n');
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(
      /^invalid configuration:\n {2}adapters\.tg\.webhook_secret: is required with mode webhook/,
    );
  });
});
