import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { RouterConfigSchema } from "../src/config/router-config.ts";
import { createRouter } from "../src/create-router.ts";
import { openRouterDatabase, routerDatabasePath } from "../src/database/router-db.ts";
import { tempDataDir } from "./support.ts";

// Routers before router.db's user_state kept active nodes and chats in users.json: the first start
// moves them in and keeps the file as users.json.bak; later starts read router.db only.

const OLD_FILE = {
  version: 1,
  users: {
    "telegram:1": {
      active_node: "home-pc",
      chat: { platform: "telegram", chat_id: "telegram:-100" },
      chats: [
        { platform: "telegram", chat_id: "telegram:-100" },
        { platform: "telegram", chat_id: "telegram:1" },
      ],
      result_modes: { "telegram:-100": "replace" },
    },
    "telegram:2": { active_node: "work" },
  },
};

/** A router started on `dataDir` and closed again, as a restart does. */
async function startAndStop(dataDir: string) {
  const config = RouterConfigSchema.parse({ DATA_DIR: dataDir, ROUTER_HOST: "127.0.0.1", ROUTER_PORT: 0 });
  const router = createRouter(config, { logger: createTestLogger().logger });
  await router.close({ drainMs: 0 });
}

function storedUsers(dataDir: string) {
  const db = openRouterDatabase(routerDatabasePath(dataDir));
  try {
    return db.prepare("SELECT * FROM user_state ORDER BY user_id").all();
  } finally {
    db.close();
  }
}

describe("users.json moved into router.db", () => {
  it("is read once at the first start, kept as users.json.bak, and not read again", async () => {
    const dataDir = tempDataDir();
    const file = join(dataDir, "router", "users.json");
    mkdirSync(join(dataDir, "router"), { recursive: true });
    writeFileSync(file, JSON.stringify(OLD_FILE));

    await startAndStop(dataDir);
    expect(existsSync(file)).toBe(false);
    expect(JSON.parse(readFileSync(`${file}.bak`, "utf8"))).toEqual(OLD_FILE);
    const rows = storedUsers(dataDir);
    expect(rows).toEqual([
      {
        user_id: "telegram:1",
        active_node: "home-pc",
        chat: JSON.stringify(OLD_FILE.users["telegram:1"].chat),
        chats: JSON.stringify(OLD_FILE.users["telegram:1"].chats),
        result_modes: JSON.stringify(OLD_FILE.users["telegram:1"].result_modes),
        details_modes: "{}",
        voice_out: 0,
      },
      {
        user_id: "telegram:2",
        active_node: "work",
        chat: null,
        chats: "[]",
        result_modes: "{}",
        details_modes: "{}",
        voice_out: 0,
      },
    ]);

    const bak = readFileSync(`${file}.bak`, "utf8");
    await startAndStop(dataDir);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.bak`, "utf8")).toBe(bak);
    expect(storedUsers(dataDir)).toEqual(rows);
  });
});
