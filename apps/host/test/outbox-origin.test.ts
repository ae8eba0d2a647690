import { join } from "node:path";
import { openDatabase } from "@phonework/runtime";
import { createTestLogger, makeTempDir } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { type DeliveryResult, OUTBOX_ORIGIN_MIGRATION, Outbox } from "../src/delivery/outbox.ts";
import { HOST_MIGRATIONS, openStateDatabase } from "../src/state-database.ts";
import { onCleanup } from "./support.ts";

// An outbox item carries its origin (which feature stored it, about what) as data, kept with the
// row: the feature hears of its own acknowledgements after a restart too, and no delivery id is
// parsed. Rows stored before origins existed get theirs from the one id format that meant one.

function dbPath(): string {
  const dir = makeTempDir();
  onCleanup(dir.remove);
  return join(dir.path, "state.db");
}

const notify = { type: "notify", user_id: "u", platform: "telegram", chat_id: "c", text: "hi" } as const;

function settled(outbox: Outbox): DeliveryResult[] {
  const results: DeliveryResult[] = [];
  outbox.onSettled((result) => results.push(result));
  return results;
}

/** The outbox of the state.db at `path`, as a host opens it after a restart. */
function reopen(path: string): Outbox {
  const db = openStateDatabase(path);
  const outbox = new Outbox(db, createTestLogger().logger);
  // Its acknowledged rows are deleted on a timer: closed (which deletes them now) before the database.
  onCleanup(() => {
    outbox.close();
    db.close();
  });
  return outbox;
}

describe("outbox origins", () => {
  it("an item's origin comes back with its acknowledgement, after a restart too; items without one have none", () => {
    const path = dbPath();
    const first = openStateDatabase(path);
    const before = new Outbox(first, createTestLogger().logger);
    before.enqueue(notify, "job-7-run-2", { feature: "schedule", ref: "7" });
    before.enqueue(notify, "plain");
    before.close();
    first.close();

    const outbox = reopen(path);
    const results = settled(outbox);
    expect(outbox.pending()).toBe(2);
    outbox.acknowledge({ type: "push_ack", delivery_id: "job-7-run-2", ok: true, message_id: "m1" });
    outbox.acknowledge({ type: "push_ack", delivery_id: "plain", ok: true });
    expect(results).toEqual([
      { deliveryId: "job-7-run-2", origin: { feature: "schedule", ref: "7" }, ok: true, messageId: "m1" },
      { deliveryId: "plain", ok: true },
    ]);
  });

  it("rows queued before origins existed: a scheduled job's (job-<id>-…) gets its job as origin, others none", () => {
    const path = dbPath();
    const old = openDatabase(path, {
      migrations: HOST_MIGRATIONS.slice(0, HOST_MIGRATIONS.indexOf(OUTBOX_ORIGIN_MIGRATION)),
    });
    const insert = old.prepare("INSERT INTO outbox (delivery_id, frame, created_at) VALUES (?, ?, ?)");
    for (const id of ["job-42-run-3", "job-x-run-1", "reply-abc"])
      insert.run(id, JSON.stringify({ ...notify, delivery_id: id }), 1);
    old.close();

    const outbox = reopen(path);
    const results = settled(outbox);
    for (const id of ["job-42-run-3", "job-x-run-1", "reply-abc"])
      outbox.acknowledge({ type: "push_ack", delivery_id: id, ok: true });
    expect(results.map((r) => r.origin)).toEqual([{ feature: "schedule", ref: "42" }, undefined, undefined]);
  });
});
