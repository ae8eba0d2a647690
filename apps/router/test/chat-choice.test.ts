import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { chooseChat, selectChatAdapters } from "../src/config/select-adapters.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { createMemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import type { PlatformAdapter } from "../src/platforms/platform-adapter.ts";
import { onCleanup, tempDataDir } from "./support.ts";

// Which chat CHAT gives the router, and what a headless router says about reaching it.

const feishu = { FEISHU_APP_ID: "cli_app", FEISHU_APP_SECRET: "app-secret" };
const config = (keys: Record<string, unknown>) =>
  RouterConfigSchema.parse({ DATA_DIR: tempDataDir(), ...keys });

describe("chooseChat", () => {
  // [case, config, stdin is a terminal, platforms served, terminal served]
  const cases: Array<[string, Record<string, unknown>, boolean, string[], boolean]> = [
    ["auto, Feishu configured, stdin a pipe", feishu, false, ["feishu"], false],
    ["auto, Feishu configured, stdin a terminal", feishu, true, ["feishu"], false],
    ["auto, nothing configured, stdin a terminal", {}, true, [], true],
    ["auto, nothing configured, stdin a pipe or /dev/null", {}, false, [], false],
    ["terminal, stdin a pipe", { CHAT: "terminal" }, false, [], true],
    ["terminal, Feishu configured", { CHAT: "terminal", ...feishu }, false, ["feishu"], true],
    ["none, stdin a terminal", { CHAT: "none" }, true, [], false],
    ["none, Feishu configured", { CHAT: "none", ...feishu }, true, [], false],
  ];
  for (const [name, keys, stdinIsTerminal, platforms, terminal] of cases)
    it(`${name} → ${[...platforms, ...(terminal ? ["terminal"] : [])].join(" + ") || "none"}`, () => {
      const choice = chooseChat(config(keys), stdinIsTerminal);
      expect({ platforms: choice.platforms.map((spec) => spec.name), terminal: choice.terminal }).toEqual({
        platforms,
        terminal,
      });
    });

  it("CHAT is auto by default and refuses anything else, naming the key", () => {
    expect(config({}).CHAT).toBe("auto");
    const parsed = RouterConfigSchema.safeParse({ CHAT: "slack" });
    expect(parsed.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["CHAT", "must be auto, terminal or none"],
    ]);
  });
});

describe("selectChatAdapters", () => {
  async function select(keys: Record<string, unknown>, stdinIsTerminal: boolean) {
    const routerConfig = config(keys);
    const db = openRouterDatabase(routerDatabasePath(routerConfig.DATA_DIR));
    onCleanup(() => {
      db.close();
    });
    const { logger, lines } = createTestLogger("info");
    const built: PlatformAdapter[] = [];
    const adapters = await selectChatAdapters(routerConfig, {
      logger,
      clock: { now: () => Date.now() },
      db,
      stdinIsTerminal,
      terminal: () => {
        const adapter = createMemoryChatAdapter("terminal");
        built.push(adapter);
        return adapter;
      },
    });
    return { adapters, built, logs: lines };
  }

  it("headless by default off a terminal: no adapter, stdin untouched, one warning saying how to chat", async () => {
    const { adapters, built, logs } = await select({}, false);
    expect(adapters).toEqual([]);
    expect(built).toEqual([]);
    expect(logs()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: expect.stringMatching(/headless.*FEISHU_APP_ID and FEISHU_APP_SECRET, or CHAT=terminal/),
      }),
    ]);
  });

  it("CHAT=none asked for: the same line, at info", async () => {
    const { adapters, logs } = await select({ CHAT: "none" }, true);
    expect(adapters).toEqual([]);
    expect(logs().map((line) => [line.level, line.msg])).toEqual([[30, expect.stringMatching(/headless/)]]);
  });

  it("CHAT=terminal serves the terminal beside Feishu, even on a pipe", async () => {
    const { adapters, built, logs } = await select(
      { CHAT: "terminal", ...feishu, ALLOWED_USERS: "ou_owner" },
      false,
    );
    expect(built.map((adapter) => adapter.name)).toEqual(["terminal"]);
    expect(adapters.map((adapter) => [adapter.name, adapter.type])).toEqual([
      ["feishu", "feishu"],
      ["terminal", "memory"],
    ]);
    expect(adapters[1]).toBe(built[0]);
    // Nothing is left unserved, so nothing needs saying.
    expect(logs()).toEqual([]);
  });

  it("CHAT=none with Feishu configured says Feishu is not served", async () => {
    const { adapters, built, logs } = await select(
      { CHAT: "none", ...feishu, ALLOWED_USERS: "ou_owner" },
      true,
    );
    expect(adapters).toEqual([]);
    expect(built).toEqual([]);
    expect(logs().map((line) => [line.level, line.msg])).toEqual([
      [40, "chat platforms are configured but CHAT=none: none is served"],
      [30, expect.stringMatching(/headless/)],
    ]);
  });
});
