import { join } from "node:path";
import { CleanupScope, makeTempDir } from "@phonework/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { openRouterDatabase } from "../src/database/router-db.ts";
import { ChatInbox, PRUNE_HANDLED } from "../src/intake/chat-inbox.ts";
import { TurnCommit } from "../src/storage/turn-commit.ts";
import { inboxMessage as message } from "./fixtures/inbox-message.ts";

// The inbox's rows on disk: its unhandled index holds only the rows still to handle (so a
// message's store and its handled mark touch one small index page, not two pages of a day's
// index), restarts still find exactly the unhandled rows in order, and the prune deletes the
// handled rows older than a day by reading the table's old prefix, not the whole table.

const DAY = 86_400_000;
const cleanup = new CleanupScope();
afterAll(() => cleanup.run());

function openInbox(name: string, clock: { now: number }) {
  const dir = makeTempDir("chat-inbox-rows-");
  cleanup.add(dir.remove);
  const db = openRouterDatabase(join(dir.path, `${name}.db`));
  cleanup.add(() => {
    db.close();
  });
  return { db, inbox: new ChatInbox(db, () => clock.now) };
}

const indexPages = (db: ReturnType<typeof openRouterDatabase>) =>
  db.prepare("SELECT count(*) FROM dbstat WHERE name = 'chat_inbox_unhandled'").pluck().get() as number;

describe("chat inbox rows", () => {
  it("keeps only unhandled rows in its index, and a restart still gets them in order", () => {
    const clock = { now: Date.now() };
    const { db, inbox } = openInbox("index", clock);
    const seqs: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const { seq } = inbox.store("telegram", message(`m${i}`), `rk-${i}`);
      seqs.push(seq);
      if (i % 1000 !== 7) inbox.markHandled(seq); // three left unhandled
      clock.now += 1;
    }
    TurnCommit.of(db).flush();
    // A day of handled rows no longer fills the index: one page (the old index: over ten).
    expect(indexPages(db)).toBe(1);
    expect(db.prepare("SELECT count(*) FROM chat_inbox").pluck().get()).toBe(3000);
    expect(inbox.unhandled("telegram").map((row) => row.message.id)).toEqual(["m7", "m1007", "m2007"]);
    expect(inbox.unhandled("feishu")).toEqual([]);
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT seq FROM chat_inbox WHERE adapter = ? AND handled_at IS NULL ORDER BY seq",
      )
      .all("telegram");
    expect(JSON.stringify(plan)).toContain("chat_inbox_unhandled");
    expect(JSON.stringify(plan)).not.toContain("TEMP B-TREE"); // in seq order from the index itself
  });

  it("prunes the handled rows older than a day, keeps the rest, and reads only the old prefix", () => {
    const clock = { now: Date.now() - 2 * DAY };
    const { db, inbox } = openInbox("prune", clock);
    const oldHandled = inbox.store("telegram", message("old-handled"), "rk-1").seq;
    inbox.markHandled(oldHandled);
    const oldUnhandled = inbox.store("telegram", message("old-unhandled"), "rk-2").seq;
    TurnCommit.of(db).flush();
    clock.now += 2 * DAY; // today
    const recentHandled = inbox.store("telegram", message("recent-handled"), "rk-3").seq;
    inbox.markHandled(recentHandled);
    const recentUnhandled = inbox.store("telegram", message("recent-unhandled"), "rk-4").seq;
    TurnCommit.of(db).flush(); // a mark also prunes, at most once an hour: this one did

    expect(inbox.prune()).toBe(0);
    const left = db.prepare("SELECT seq FROM chat_inbox ORDER BY seq").pluck().all();
    expect(left).toEqual([oldUnhandled, recentHandled, recentUnhandled]);
    expect(inbox.unhandled("telegram").map((row) => row.seq)).toEqual([oldUnhandled, recentUnhandled]);
    // A new row still comes after every kept one.
    expect(inbox.store("telegram", message("next"), "rk-5").seq).toBe(recentUnhandled + 1);

    // Everything old: all handled rows go, none kept by a missing boundary.
    clock.now += 2 * DAY;
    for (const seq of [oldUnhandled, recentUnhandled, recentUnhandled + 1]) inbox.markHandled(seq);
    TurnCommit.of(db).flush(); // that mark's prune: the row handled two days ago
    expect(db.prepare("SELECT count(*) FROM chat_inbox").pluck().get()).toBe(3);
    clock.now += 2 * DAY;
    expect(inbox.prune()).toBe(3);
    expect(db.prepare("SELECT count(*) FROM chat_inbox").pluck().get()).toBe(0);

    const plan = JSON.stringify(
      db.prepare(`EXPLAIN QUERY PLAN ${PRUNE_HANDLED}`).all({ cutoff: clock.now - DAY, now: clock.now }),
    );
    expect(plan).toContain("INTEGER PRIMARY KEY (rowid<?)"); // a range from the table's start
  });

  it("a clock that ran ahead and was set back neither stops the prune nor holds the old rows back", () => {
    const base = Date.now();
    const clock = { now: base + 365 * DAY }; // ahead
    const { db, inbox } = openInbox("ahead", clock);
    const ahead = inbox.store("telegram", message("ahead"), "rk-a").seq;
    inbox.markHandled(ahead); // and the hourly prune, at that time
    TurnCommit.of(db).flush();
    clock.now = base; // corrected
    inbox.markHandled(inbox.store("telegram", message("old"), "rk-o").seq);
    TurnCommit.of(db).flush();
    clock.now = base + 2 * DAY;
    const recent = inbox.store("telegram", message("recent"), "rk-r").seq;
    inbox.markHandled(recent); // its hourly prune: "old" was handled two days ago
    TurnCommit.of(db).flush();
    expect(db.prepare("SELECT seq FROM chat_inbox ORDER BY seq").pluck().all()).toEqual([ahead, recent]);
  });
});
