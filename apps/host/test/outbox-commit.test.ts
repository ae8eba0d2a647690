import { statSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { CleanupScope, createTestLogger, waitFor } from "@phonework/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { OUTBOX_LEAN_MIGRATION, Outbox, type OutboxLink } from "../src/delivery/outbox.ts";
import { HOST_MIGRATIONS, openStateDatabase } from "../src/state-database.ts";

// What an answer costs the host's state.db: the answers of one turn share one commit, each frame
// leaves only after the commit that holds its row (checked by the receiving end, which reads the
// table from a connection of its own when the frame arrives), and that commit writes one page of
// the WAL per commit, not three. Rows are deleted by seq and id, so a seq reused after a rolled
// back transaction never deletes another item's row.

const notify = (text: string) =>
  ({ type: "notify", user_id: "u", platform: "telegram", chat_id: "c", text }) as const;

// Not ./support.ts's onCleanup: that module imports createHost, seconds of loading this file never uses.
const cleanup = new CleanupScope();
afterEach(() => cleanup.run());
const onCleanup = (step: () => void | Promise<void>) => cleanup.add(step);

const dbPath = (): string => join(cleanup.tempDir(), "state.db");

function open(path: string): { db: SqliteDatabase; outbox: Outbox } {
  const db = openStateDatabase(path);
  const outbox = new Outbox(db, createTestLogger().logger);
  onCleanup(() => {
    outbox.close();
    if (db.open) db.close();
  });
  return { db, outbox };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Frames that arrive at a real ws server, each with whether its row was committed when it arrived. */
interface Receiver {
  url: string;
  arrived: Array<{ deliveryId: string; committed: boolean }>;
  watch(path: string): void;
}

let receiver: Receiver;
let server: WebSocketServer;
beforeAll(async () => {
  server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  let reader: SqliteDatabase | undefined;
  const arrived: Receiver["arrived"] = [];
  server.on("connection", (socket) =>
    socket.on("message", (data) => {
      const deliveryId = (JSON.parse(String(data)) as { delivery_id: string }).delivery_id;
      const row = reader?.prepare("SELECT 1 FROM outbox WHERE delivery_id = ?").get(deliveryId);
      arrived.push({ deliveryId, committed: row !== undefined });
    }),
  );
  receiver = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    watch: (path) => {
      reader?.close();
      reader = openDatabase(path, { migrations: HOST_MIGRATIONS });
    },
  };
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** The outbox's link: a real ws client to the receiver. */
async function link(): Promise<OutboxLink> {
  const socket = new WebSocket(receiver.url);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  onCleanup(() => socket.close());
  return {
    sendEncoded: (text) => {
      socket.send(text);
      return true;
    },
    onStateChange: () => () => {},
  };
}

describe("outbox commits", () => {
  it("the answers of one turn make one commit, and none of their frames leaves before it", async () => {
    const path = dbPath();
    const { outbox } = open(path);
    receiver.watch(path);
    receiver.arrived.splice(0);
    outbox.attach(await link());
    outbox.enqueue(notify("warm-up"), "warm-up");
    await waitFor(() => receiver.arrived.length === 1);
    const before = outbox.stats;

    const ids = ["a", "b", "c", "d", "e"];
    for (const id of ids) outbox.enqueue(notify(id), id);
    expect(outbox.stats.commits).toBe(before.commits); // not yet: at the end of the turn
    await waitFor(() => receiver.arrived.length === 6);

    expect(outbox.stats.commits - before.commits).toBe(1);
    expect(outbox.stats.stored - before.stored).toBe(5);
    expect(receiver.arrived.slice(1)).toEqual(ids.map((deliveryId) => ({ deliveryId, committed: true })));
  });

  it("an answer's commit writes one page of the WAL: no id index, no AUTOINCREMENT counter", async () => {
    const path = dbPath();
    const { db, outbox } = open(path);
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    for (const id of ["w1", "w2", "w3"]) outbox.enqueue(notify(id), id); // the table's first page
    await nextTurn();
    const wal = () => statSync(`${path}-wal`).size;
    const before = wal();
    outbox.enqueue(notify("one"), "one");
    await nextTurn();
    expect(outbox.stats.stored).toBe(4);
    expect(wal() - before).toBe(pageSize + 24); // one frame: its header and the table's page
  });

  it("a burst larger than one statement's rows: stored in order, each deleted by its own acknowledgement", async () => {
    const { db, outbox } = open(dbPath());
    const ids = Array.from({ length: 37 }, (_, i) => `burst-${i}`); // statements of 16, 16, 4 and 1 rows
    for (const id of ids) outbox.enqueue(notify(id), id);
    await nextTurn();
    expect(outbox.stats).toMatchObject({ commits: 1, stored: 37 });
    expect(db.prepare("SELECT delivery_id FROM outbox ORDER BY seq").pluck().all()).toEqual(ids);
    const acked = ids.filter((_, i) => i % 3 !== 1);
    for (const id of acked) outbox.acknowledge({ type: "push_ack", delivery_id: id, ok: true });
    outbox.close();
    expect(outbox.stats.deleted).toBe(acked.length);
    const left = ids.filter((_, i) => i % 3 === 1);
    expect(db.prepare("SELECT delivery_id FROM outbox ORDER BY seq").pluck().all()).toEqual(left);
  });

  it("an item acknowledged before its row's commit: the row is deleted by id and no seq stays behind", async () => {
    const { db, outbox } = open(dbPath());
    outbox.enqueue(notify("raced"), "raced");
    outbox.acknowledge({ type: "push_ack", delivery_id: "raced", ok: true }); // before the turn's commit
    await nextTurn();
    expect(outbox.stats).toMatchObject({ stored: 1, seqsKnown: 0 });
    outbox.close();
    expect(outbox.stats.deleted).toBe(1);
    expect(db.prepare("SELECT count(*) FROM outbox").pluck().get()).toBe(0);
  });

  it("an acknowledged row is deleted by seq and id: a seq reused after a rollback keeps the other item", async () => {
    const path = dbPath();
    const first = open(path);
    expect(() =>
      first.db.transaction(() => {
        first.outbox.enqueue(notify("lost"), "rolled-back"); // its row goes with the transaction
        throw new Error("the caller's transaction fails");
      })(),
    ).toThrow("the caller's transaction fails");
    first.outbox.enqueue(notify("kept"), "kept"); // the table is empty again: the same seq
    await nextTurn();
    first.outbox.acknowledge({ type: "push_ack", delivery_id: "rolled-back", ok: true });
    first.outbox.close();
    expect(first.outbox.stats.deleted).toBe(0);
    first.db.close();

    const again = open(path);
    expect(again.outbox.pending()).toBe(1);
    again.outbox.acknowledge({ type: "push_ack", delivery_id: "kept", ok: true });
    again.outbox.close();
    expect(again.db.prepare("SELECT count(*) FROM outbox").pluck().get()).toBe(0);
  });

  it("rows of the old table keep their order and are deleted by their acknowledgements; an id stored twice keeps one row", () => {
    const path = dbPath();
    const old = openDatabase(path, {
      migrations: HOST_MIGRATIONS.slice(0, HOST_MIGRATIONS.indexOf(OUTBOX_LEAN_MIGRATION)),
    });
    const insert = old.prepare("INSERT INTO outbox (delivery_id, frame, created_at) VALUES (?, ?, ?)");
    for (const id of ["x", "y", "z"]) insert.run(id, JSON.stringify({ ...notify(id), delivery_id: id }), 1);
    old.close();
    const migrated = openStateDatabase(path);
    migrated
      .prepare("INSERT INTO outbox (delivery_id, frame, created_at) VALUES ('y', ?, 2)")
      .run(JSON.stringify({ ...notify("y again"), delivery_id: "y" }));
    migrated.close();

    const { db, outbox } = open(path);
    expect(db.prepare("SELECT delivery_id FROM outbox ORDER BY seq").pluck().all()).toEqual(["x", "z", "y"]);
    expect(outbox.pending()).toBe(3);
    for (const id of ["x", "y", "z"]) outbox.acknowledge({ type: "push_ack", delivery_id: id, ok: true });
    outbox.close();
    expect(db.prepare("SELECT count(*) FROM outbox").pluck().get()).toBe(0);
  });
});
