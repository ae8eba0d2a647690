import { randomInt } from "node:crypto";
import type { SqliteDatabase } from "@phonework/runtime";
import { BloomBits } from "./bloom-bits.ts";
import { ExpiringRows, type SweepListener } from "./expiring-rows.ts";
import { hashKey } from "./key-hash.ts";
import { PerConnection } from "./per-connection.ts";

// Answers "this key is certainly not in the table" from memory, so a dedup lookup (seen_events,
// delivered) runs its SELECT only when the key may be there. On a message's path the answer is
// almost always "not there", and that SELECT, outside a transaction, is a read transaction of its
// own (WAL-index locks): ~11 µs of the router's main thread per message each in the bench's
// profile, against well under 1 µs here.
//
// Exact in the direction that matters: every key that can be in the table is in the filter.
//  - It is built from a scan of the table's keys when the first store on a connection asks for it
//    (`of`), i.e. after the migrations and after the table's start-up sweep (the stores ask for
//    the shared ExpiringRows first, which deletes what has expired): it reads the live rows only,
//    and holds no bits for keys that were about to go. Every store of the table on that connection
//    shares it, as they share the sweeper it listens to.
//  - Every write of a key goes through the table's one class (SeenEvents for seen_events,
//    DeliveredStore for delivered; test/table-key-filter.unit.test.ts fails on any other writer
//    in the apps' and packages' source), and that class adds the key, with the `at` it writes,
//    before the statement runs. A write that fails or is rolled back leaves a key the table does
//    not hold: a "maybe", which costs one SELECT, never a wrong answer.
//  - Rows go only by ExpiringRows' sweeps or a store's own delete: a key left behind is again only
//    a "maybe".
// A false positive (one layer in ~1,700 when full, or a collision someone managed to force) costs
// the SELECT every lookup paid before. A second connection or process writing the table would
// break the promise: none does (one router process writes router.db's dedup tables, on the one
// connection it opens; `phonework pair` opens router.db from its own process for join codes only).
//
// Memory does not grow with time: keys are added in layers (generations). Only the newest takes
// adds; it is full at its capacity and a new one begins. Each layer remembers the latest `at` it
// was given and when it was last added to. ExpiringRows tells when a sweep (the full one, or a
// pass along the key) begins and when it is done, committed: then every row written before it
// began with `at` at or before its cutoff is gone. A layer last added to before such a sweep began,
// whose `at` is at or before its cutoff, covers no row any more (a key written again since is in a
// newer layer, with its newer `at`), and is dropped. Nothing here trusts the clock to move forward.
// So the layers hold about the keys written within the last TTL plus two or three passes (2–3 h),
// at 2 bytes a key, 2–4× that while layers fill: bounded by what the table holds, itself bounded by
// the intake's limits. A key added again (a replayed webhook) does not count twice. A lookup
// hashes the key once and tests each live layer (2–3 in a steady state; ~10 after a flood of a
// million keys), usually one probe each: 150–210 ns with up to 6 layers, 300–450 ns with 9.
//
// Building it reads the table once, when the router is created (before it listens, so not during
// the reconnect storm that follows a restart), after the start-up sweep: 0.12 s a table of 100,000
// live rows, 1.0 s of 1,000,000 on the 2-core bench machine; expired rows cost only that sweep.
//
// Not a library: `bloomfilter` (zero dependencies, kept) hashes the key again for every filter and
// has no seed: ~250 ns a lookup for one filter, ~970 ns for three, against 120–170 ns here in the
// same run;
// `@mcrowe/minibloom` has the same shape; `bloom-filters` brings lodash, xxhashjs, seedrandom and
// four more; `bfilter` needs bcrypto; `bloem` needs fnv and bitbuffer.

/** The smallest layer (8 KB); a new layer is sized to the keys the live ones hold, within these bounds. */
const MIN_LAYER_KEYS = 4096;
/** Keys read from the table at a time when the filter is built. */
const SCAN_PAGE = 4096;
/** The largest layer (2 MB): a bigger table spreads over more layers. */
const MAX_LAYER_KEYS = 1 << 20;

interface Layer {
  readonly bits: BloomBits;
  readonly capacity: number;
  /** Distinct keys added (a key already present in this layer is not counted again). */
  count: number;
  /** The latest `at` added: once a committed sweep's cutoff reaches it, the layer covers no row. */
  lastAt: number;
  /** Which add (counted by the filter) was its last: a sweep that began after it saw all its rows. */
  lastAdd: number;
}

export class TableKeyFilter implements SweepListener {
  private static readonly shared = new PerConnection<TableKeyFilter>();

  /** The filter of `table` on this connection, built by a scan of the table on first use. */
  static of(db: SqliteDatabase, table: string): TableKeyFilter {
    return (
      TableKeyFilter.shared.get(db, table) ??
      TableKeyFilter.shared.set(db, table, new TableKeyFilter(db, table))
    );
  }

  /**
   * A dedup table's two shared helpers on this connection, in the one order that keeps the filter
   * exact: the sweeper (its start-up sweep done by the first store), then the filter, built from
   * the rows that sweep left, then the filter listening to every later sweep.
   */
  static withSweeper(
    db: SqliteDatabase,
    table: string,
    ttlMs: number,
    now: () => number,
  ): { expiring: ExpiringRows; filter: TableKeyFilter } {
    const expiring = ExpiringRows.of(db, table, ttlMs, now, { alongKey: "key", sweepAtStart: true });
    const filter = TableKeyFilter.of(db, table);
    expiring.listen(filter);
    return { expiring, filter };
  }

  /** Oldest first; the last one takes the adds. */
  private layers: Layer[] = [];
  /** Adds so far: a sweep's mark. */
  private adds = 0;
  private readonly seed = randomInt(2 ** 31);
  /** The key's two hashes, written by hashKey (one array for every call, not one per call). */
  private readonly hashes = new Int32Array(2);

  private constructor(db: SqliteDatabase, table: string) {
    const rows = db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    const capacity = layerSize(rows);
    // Along the key, by pages (bounded memory), each page's keys added with its latest `at`: a
    // layer's `at` is then at or after each of its rows', so it goes only once they have.
    const first = db.prepare(`SELECT key, at FROM ${table} ORDER BY key LIMIT ${SCAN_PAGE}`).raw();
    const next = db
      .prepare(`SELECT key, at FROM ${table} WHERE key > ? ORDER BY key LIMIT ${SCAN_PAGE}`)
      .raw();
    let page = first.all() as Array<[string, number]>;
    while (page.length > 0) {
      const latest = page.reduce((at, row) => Math.max(at, row[1]), Number.NEGATIVE_INFINITY);
      for (const [key] of page) this.addTo(key, latest, capacity);
      page = next.all((page.at(-1) as [string, number])[0]) as Array<[string, number]>;
    }
  }

  /** False only if the key is certainly not in the table. */
  mayHave(key: string): boolean {
    hashKey(key, this.seed, this.hashes);
    const h1 = this.hashes[0] as number;
    const h2 = this.hashes[1] as number;
    for (const layer of this.layers) if (layer.bits.has(h1, h2)) return true;
    return false;
  }

  /** Called by the table's writer with the `at` it writes, before the write. */
  add(key: string, at: number): void {
    this.addTo(key, at, undefined);
  }

  /** A sweep of the table begins (ExpiringRows): the mark of the adds so far. */
  sweepBegins(): number {
    return this.adds;
  }

  /**
   * The sweep begun at `mark` deleted every row written before it with `at <= cutoff`: drops the
   * layers that covered only such rows (every add before the mark, none with a later `at`).
   * ExpiringRows calls it only for a sweep whose deletes all ran outside a transaction (committed:
   * one rolled back would bring rows back).
   */
  swept(cutoff: number, mark: number): void {
    this.layers = this.layers.filter((layer) => layer.lastAt > cutoff || layer.lastAdd > mark);
  }

  /** The layers' size in bytes (memory bound tests, diagnostics). */
  get bytes(): number {
    return this.layers.reduce((sum, layer) => sum + layer.bits.bytes, 0);
  }

  /** How many live layers a lookup tests. */
  get layerCount(): number {
    return this.layers.length;
  }

  private addTo(key: string, at: number, capacity: number | undefined): void {
    hashKey(key, this.seed, this.hashes);
    const h1 = this.hashes[0] as number;
    const h2 = this.hashes[1] as number;
    let layer = this.layers.at(-1);
    if (!layer || layer.count >= layer.capacity) {
      const size = capacity ?? layerSize(this.layers.reduce((sum, live) => sum + live.count, 0));
      layer = { bits: new BloomBits(size), capacity: size, count: 0, lastAt: at, lastAdd: 0 };
      this.layers.push(layer);
    }
    // Already there (or its bits all set): adding would change nothing, so it does not count.
    if (!layer.bits.has(h1, h2)) {
      layer.bits.add(h1, h2);
      layer.count++;
    }
    if (at > layer.lastAt) layer.lastAt = at;
    layer.lastAdd = ++this.adds;
  }
}

/** A power of two at or above `keys`, within the layer bounds. */
function layerSize(keys: number): number {
  let size = MIN_LAYER_KEYS;
  while (size < keys && size < MAX_LAYER_KEYS) size *= 2;
  return size;
}
