import { join } from "node:path";
import type { SqliteDatabase } from "@phonework/runtime";
import { createTestLogger, makeTempDir, waitFor } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { AdapterAccess } from "../src/access/adapter-access.ts";
import type { IncomingMessage } from "../src/chat/chat-types.ts";
import { openRouterDatabase } from "../src/database/router-db.ts";
import { DeliveredStore } from "../src/delivery/delivered-store.ts";
import { ChatLayer } from "../src/intake/chat-layer.ts";
import { createMemoryChatAdapter } from "../src/platforms/memory/memory-adapter.ts";
import { SeenEvents } from "../src/storage/seen-events.ts";
import { TableKeyFilter } from "../src/storage/table-key-filter.ts";
import { TurnCommit } from "../src/storage/turn-commit.ts";
import { countingDatabase } from "./fixtures/counting-database.ts";

// The dedup lookups on a message's path (a chat event's id, a host's delivery id) answer "never
// seen" without a SELECT, and what that rests on holds against a stranger: a flood of new ids
// costs memory only until the sweep that deletes their rows, and a redelivery after a restart is
// still dropped.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const { path: dir, remove } = makeTempDir("dedup-lookups-");
afterAll(remove);
let files = 0;

describe("dedup lookups", () => {
  it("run no SELECT for an id never seen, and the SELECT for one that was", async () => {
    const path = join(dir, `c${files++}.db`);
    const { db, runs } = countingDatabase(openRouterDatabase(path));
    try {
      let now = 1_700_000_000_000;
      const seen = new SeenEvents(db, DAY, () => now);
      const delivered = new DeliveredStore(db, 7 * DAY, () => now);
      const selectSeen = "SELECT at FROM seen_events WHERE key = ?";
      const selectDelivered = "SELECT message_id FROM delivered WHERE key = ?";

      expect(seen.checkAndRemember(["inbox:mem:m:c1:1"])).toBe(false);
      expect(delivered.begin("home/d-1")).toEqual({ state: "new" });
      await delivered.finish("home/d-1", "platform-1");
      const before = { seen: runs(selectSeen), delivered: runs(selectDelivered) };

      for (let i = 2; i < 200; i++) {
        expect(seen.seenWithin([`inbox:mem:m:c1:${i}`, `inbox:mem:e:${i}`])).toBe(false);
        expect(delivered.begin(`home/d-${i}`)).toEqual({ state: "new" });
        delivered.abandon(`home/d-${i}`);
      }
      // Nearly every id is new on the hot path: none of them cost a read transaction.
      expect(runs(selectSeen)).toBe(before.seen);
      expect(runs(selectDelivered)).toBe(before.delivered);

      // One that was seen: asked of the table, and found.
      now += HOUR;
      expect(seen.seenWithin(["inbox:mem:m:c1:1"])).toBe(true);
      expect(runs(selectSeen)).toBe(before.seen + 1);
      expect(delivered.begin("home/d-1")).toEqual({ state: "delivered", messageId: "platform-1" });
      expect(runs(selectDelivered)).toBe(before.delivered + 1);
    } finally {
      db.close();
    }
  });

  it("a stranger's flood of new ids is memory only until the sweep, and a redelivery after a restart is still dropped", async () => {
    const path = join(dir, `f${files++}.db`);
    let now = 1_700_000_000_000;
    const start = async (db: SqliteDatabase) => {
      const adapter = createMemoryChatAdapter("mem");
      const delivered: IncomingMessage[] = [];
      const layer = new ChatLayer({
        adapters: [adapter],
        accessFor: () => new AdapterAccess({ admins: ["mem:boss"], dm: [] }),
        db,
        now: () => now,
        seenTtlMs: DAY,
        buttonTtlMs: DAY,
        maxAttachmentBytes: 1024,
        maxPerChat: 50,
        logger: createTestLogger().logger,
      });
      await layer.start(async (message) => {
        delivered.push(message);
      });
      return { adapter, layer, delivered };
    };

    let db = openRouterDatabase(path);
    const first = await start(db);
    await first.adapter.receive({ id: "42", userId: "boss", chatId: "c1", text: "once" });
    const filter = TableKeyFilter.of(db, "seen_events");
    const quiet = filter.bytes;
    // 4,500 ids nobody sent before, each a row (stored, then refused): more than one layer holds.
    for (let batch = 0; batch < 9; batch++)
      await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          first.adapter.receive({ id: `x-${batch}-${i}`, userId: "stranger", chatId: "c9", text: "hi" }),
        ),
      );
    await first.layer.drain();
    expect(filter.layerCount).toBeGreaterThan(1);
    expect(filter.bytes).toBeGreaterThan(quiet);
    // A day and an hour later the next messages sweep their rows (a step each, along the key), and
    // once a pass begun after them is done, their layers go with them.
    now += DAY + HOUR + 1;
    await first.adapter.receive({ id: "43", userId: "boss", chatId: "c1", text: "next day" });
    for (let i = 0; i < 30; i++) await first.adapter.receive({ id: `s-${i}`, userId: "stranger", text: "?" });
    await first.layer.drain();
    expect(db.prepare("SELECT count(*) FROM seen_events WHERE key LIKE '%x-%'").pluck().get()).toBe(0);
    expect(filter.bytes).toBeLessThanOrEqual(quiet);
    await first.layer.stop();
    TurnCommit.of(db).flush(); // as the router does before it closes the database (the handled marks)
    db.close();

    // The router restarts: the filter is built again from the table, and 43 is in it.
    db = openRouterDatabase(path);
    try {
      const second = await start(db);
      await second.adapter.receive({ id: "43", userId: "boss", chatId: "c1", text: "next day" });
      await second.adapter.receive({ id: "44", userId: "boss", chatId: "c1", text: "new" });
      await second.layer.drain();
      await waitFor(() => second.delivered.length === 1);
      expect(first.delivered.map((m) => m.text)).toEqual(["once", "next day"]);
      expect(second.delivered.map((m) => m.text)).toEqual(["new"]);
      await second.layer.stop();
    } finally {
      db.close();
    }
  });
});
