import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import type { ChatAdapter } from "../src/chat/chat-adapter.ts";
import { createMemoryChatAdapter } from "../src/chat/memory-adapter.ts";
import { chooseChat, selectChatAdapters } from "../src/chat/select-adapters.ts";
import { RouterConfigSchema } from "../src/config.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/state/router-db.ts";
import { onCleanup, tempDataDir } from "./support.ts";

// Which chat CHAT gives the router, and what a headless router says about reaching it.

const feishu = { FEISHU_APP_ID: "cli_app", FEISHU_APP_SECRET: "app-secret" };
const config = (keys: Record<string, unknown>) =>
  RouterConfigSchema.parse({ DATA_DIR: tempDataDir(), ...keys });

describe("chooseChat", () => {
  const cases: Array<[string, Record<string, unknown>, boolean, string]> = [
    ["auto, Feishu configured, stdin a pipe", feishu, false, "feishu"],
    ["auto, Feishu configured, stdin a terminal", feishu, true, "feishu"],
    ["auto, nothing configured, stdin a terminal", {}, true, "terminal"],
    ["auto, nothing configured, stdin a pipe or /dev/null", {}, false, "none"],
    ["terminal, stdin a pipe", { CHAT: "terminal" }, false, "terminal"],
    ["terminal, Feishu configured", { CHAT: "terminal", ...feishu }, false, "terminal"],
    ["none, stdin a terminal", { CHAT: "none" }, true, "none"],
    ["none, Feishu configured", { CHAT: "none", ...feishu }, true, "none"],
  ];
  for (const [name, keys, stdinIsTerminal, expected] of cases)
    it(`${name} → ${expected}`, () => {
      expect(chooseChat(config(keys), stdinIsTerminal)).toBe(expected);
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
    const built: ChatAdapter[] = [];
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

  it("CHAT=terminal builds the terminal chat on a pipe, and says Feishu is left unserved", async () => {
    const { adapters, built, logs } = await select({ CHAT: "terminal", ...feishu }, false);
    expect(adapters).toEqual(built);
    expect(adapters.map((adapter) => adapter.platform)).toEqual(["terminal"]);
    expect(logs().map((line) => line.msg)).toEqual([
      "FEISHU_APP_ID is set but CHAT=terminal: Feishu is not served",
    ]);
  });
});
