import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import {
  openRouterDatabase,
  ROUTER_MIGRATIONS,
  TTL_TABLES_WITHOUT_AT_INDEX_MIGRATION,
} from "../src/database/router-db.ts";
import { DeliveredStore } from "../src/delivery/delivered-store.ts";
import { RequestLog } from "../src/delivery/request-log.ts";
import { ChatInbox } from "../src/intake/chat-inbox.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";
import { inboxMessage as message } from "./fixtures/inbox-message.ts";

// router.db made by the version before the keyed tables became WITHOUT ROWID (and the inbox lost
// AUTOINCREMENT): the upgrade rebuilds those tables and keeps every row, so a redelivery is still
// dropped, a resent delivery still gets its ack, and a message stored before the stop is still
// handled after it. The last upgrade drops the TTL tables' `at` indexes (swept along the key now).

const SCHEMA_BEFORE = 19; // migrations shipped before the rebuilds
const DAY = 86_400_000;
const { path: dir, remove } = makeTempDir("router-db-upgrade-");
afterAll(remove);

function oldDatabase(path: string, now: number): void {
  const db = openDatabase(path, { migrations: ROUTER_MIGRATIONS.slice(0, SCHEMA_BEFORE) });
  db.prepare("INSERT INTO seen_events (key, at) VALUES (?, ?)").run("inbox:telegram:m:c1:41", now - 1000);
  db.prepare("INSERT INTO delivered (key, state, message_id, at) VALUES (?, 'delivered', ?, ?)").run(
    "home/d-7",
    "platform-msg-9",
    now - 1000,
  );
  db.prepare(
    "INSERT INTO requests (id, node_id, user_id, platform, chat_id, at) VALUES (?, 'home', 'telegram:1', 'telegram', 'telegram:c1', ?)",
  ).run("req-1", now - 1000);
  const store = db.prepare(
    "INSERT INTO chat_inbox (adapter, message, at, handled_at, request_key) VALUES ('telegram', ?, ?, ?, ?)",
  );
  store.run(JSON.stringify(message("40")), now - 2000, now - 1500, "rk-40");
  store.run(JSON.stringify(message("41")), now - 1000, null, "rk-41");
  db.close();
}

const atIndexes = (db: SqliteDatabase) =>
  db
    .prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('seen_events', 'delivered', 'requests') ORDER BY name",
    )
    .pluck()
    .all();

const withoutRowid = (db: SqliteDatabase, table: string) =>
  (db.prepare("SELECT wr FROM pragma_table_list WHERE name = ?").pluck().get(table) as number) === 1;

describe("router.db upgrade to WITHOUT ROWID keyed tables", () => {
  it("keeps every row, and dedup, resend acks and unhandled messages work on them", () => {
    const now = Date.now();
    const path = join(dir, "router.db");
    oldDatabase(path, now);

    const db = openRouterDatabase(path);
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(ROUTER_MIGRATIONS.length);
      for (const table of ["seen_events", "delivered", "requests"])
        expect(withoutRowid(db, table)).toBe(true);
      expect(db.prepare("SELECT name FROM sqlite_sequence").pluck().all()).not.toContain("chat_inbox");
      const clock = () => now;

      const seen = new SeenEvents(db, DAY, clock);
      expect(seen.seenWithin(["inbox:telegram:m:c1:41"])).toBe(true); // a redelivery is still dropped
      expect(seen.checkAndRemember(["inbox:telegram:m:c1:42"])).toBe(false);
      expect(seen.checkAndRemember(["inbox:telegram:m:c1:42"])).toBe(true);

      const delivered = new DeliveredStore(db, DAY, clock);
      expect(delivered.begin("home/d-7")).toEqual({ state: "delivered", messageId: "platform-msg-9" });
      expect(delivered.begin("home/d-8")).toEqual({ state: "new" });

      const requests = new RequestLog(db, DAY, clock);
      expect(requests.originOf("home", "req-1")).toEqual({
        nodeId: "home",
        userId: "telegram:1",
        platform: "telegram",
        chatId: "telegram:c1",
      });

      const inbox = new ChatInbox(db, clock);
      expect(inbox.unhandled("telegram")).toEqual([
        { seq: 2, adapter: "telegram", message: message("41"), requestKey: "rk-41" },
      ]);
      // New rows still come after the kept ones (unhandled() hands them out in that order).
      expect(inbox.store("telegram", message("43"), "rk-43").seq).toBe(3);
      expect(inbox.unhandled("telegram").map((row) => row.seq)).toEqual([2, 3]);
      // The TTL tables lost their `at` index: a sweep step reads a range of the key instead.
      expect(atIndexes(db)).toEqual([]);
      const plan = db
        .prepare("EXPLAIN QUERY PLAN DELETE FROM delivered WHERE key > ? AND key <= ? AND at <= ?")
        .all("a", "b", now);
      expect(JSON.stringify(plan)).toContain("USING PRIMARY KEY");
    } finally {
      db.close();
    }
  });

  it("drops the TTL tables' `at` indexes and keeps every row, expired ones too until a sweep", () => {
    const now = Date.now();
    const path = join(dir, "before-drop.db");
    // Every migration before the drop (not "all but the last": the next one to ship comes after it).
    const dropAt = ROUTER_MIGRATIONS.indexOf(TTL_TABLES_WITHOUT_AT_INDEX_MIGRATION);
    const before = openDatabase(path, { migrations: ROUTER_MIGRATIONS.slice(0, dropAt) });
    expect(atIndexes(before)).toEqual(["delivered_at", "requests_at", "seen_events_at"]);
    const seen = before.prepare("INSERT INTO seen_events (key, at) VALUES (?, ?)");
    const delivered = before.prepare(
      "INSERT INTO delivered (key, state, message_id, at) VALUES (?, 'delivered', ?, ?)",
    );
    const requests = before.prepare(
      "INSERT INTO requests (id, node_id, user_id, platform, chat_id, at) VALUES (?, 'home', 'u', 'p', 'c', ?)",
    );
    before.transaction(() => {
      for (let i = 0; i < 100; i++) {
        const at = i % 2 === 0 ? now - 10 * DAY : now; // half of them past any TTL
        seen.run(`s-${i}`, at);
        delivered.run(`home/d-${i}`, `m-${i}`, at);
        requests.run(`r-${i}`, at);
      }
    })();
    before.close();

    const db = openRouterDatabase(path);
    try {
      expect(atIndexes(db)).toEqual([]);
      for (const table of ["seen_events", "delivered", "requests"])
        expect(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()).toBe(100);
      // The stores sweep what expired when they start, along the key now.
      new SeenEvents(db, DAY, () => now);
      new DeliveredStore(db, DAY, () => now);
      expect(db.prepare("SELECT count(*) FROM seen_events").pluck().get()).toBe(50);
      expect(db.prepare("SELECT count(*) FROM delivered").pluck().get()).toBe(50);
    } finally {
      db.close();
    }
  });
});
