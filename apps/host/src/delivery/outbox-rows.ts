import type { SqliteDatabase, SqliteStatement } from "@phonework/runtime";

// The outbox's table, written with as few statements as a batch allows: the rows of one commit go
// in by multi-row INSERTs, and acknowledged rows go by multi-row DELETEs that find each row by its
// `seq` (the rowid: no index to look up or to keep) and check its delivery id (a statement per
// power of two up to CHUNK rows, built when first needed).

/** A row to store: delivery id, encoded frame, created at, origin (JSON). */
export type OutboxRow = [deliveryId: string, encoded: string, createdAt: number, origin: string | null];

/** Rows per statement at most. */
const CHUNK = 16;

export class OutboxRows {
  /** Rows stored and deleted since the start (tests and the bench read them). */
  stored = 0;
  deleted = 0;
  /** INSERT and DELETE statements by how many rows each stores or deletes. */
  private readonly inserts = new Map<number, SqliteStatement>();
  private readonly removes = new Map<number, SqliteStatement>();
  private readonly removeById: SqliteStatement;
  /** Built once (better-sqlite3 makes a wrapper for each `transaction` call). */
  readonly insertAll: (rows: readonly OutboxRow[], seqs: Map<string, number>) => void;
  readonly deleteAll: (acked: ReadonlyArray<[deliveryId: string, seq: number | undefined]>) => void;

  constructor(private readonly db: SqliteDatabase) {
    // Only for an item whose row's seq was never learnt (acknowledged before its commit).
    this.removeById = db.prepare("DELETE FROM outbox WHERE delivery_id = ?");
    this.insertAll = db.transaction((rows, seqs) => {
      for (let at = 0, size = 0; at < rows.length; at += size) {
        size = chunk(rows.length - at);
        const args: Array<string | number | null> = [];
        for (let i = at; i < at + size; i++) args.push(...(rows[i] as OutboxRow));
        // Rowids of one statement's rows are consecutive (each is the table's largest plus one).
        const last = Number(this.statement(this.inserts, size, insertSql).run(...args).lastInsertRowid);
        for (let i = 0; i < size; i++) seqs.set((rows[at + i] as OutboxRow)[0], last - size + 1 + i);
      }
      this.stored += rows.length;
    });
    this.deleteAll = db.transaction((acked) => {
      const known = acked.filter(
        (item: [string, number | undefined]): item is [string, number] => item[1] !== undefined,
      );
      for (let at = 0, size = 0; at < known.length; at += size) {
        size = chunk(known.length - at);
        const seqs: number[] = [];
        const ids: string[] = [];
        for (let i = at; i < at + size; i++) {
          const [deliveryId, seq] = known[i] as [string, number];
          seqs.push(seq);
          ids.push(deliveryId);
        }
        this.deleted += this.statement(this.removes, size, deleteSql).run(...seqs, ...ids).changes;
      }
      for (const [deliveryId, seq] of acked)
        if (seq === undefined) this.deleted += this.removeById.run(deliveryId).changes;
    });
  }

  /** Every stored row, oldest first; a delivery id stored twice keeps its newest row. */
  load(): Array<{ seq: number; delivery_id: string; frame: string; origin: string | null }> {
    // The table has no unique index: an id stored twice (never, while memory mirrors the table) would
    // otherwise keep a row no acknowledgement deletes.
    this.db.exec("DELETE FROM outbox WHERE seq NOT IN (SELECT max(seq) FROM outbox GROUP BY delivery_id)");
    return this.db.prepare("SELECT seq, delivery_id, frame, origin FROM outbox ORDER BY seq").all() as Array<{
      seq: number;
      delivery_id: string;
      frame: string;
      origin: string | null;
    }>;
  }

  /** One row, in the caller's transaction; its seq. */
  insertOne(row: OutboxRow): number {
    const seq = Number(this.statement(this.inserts, 1, insertSql).run(...row).lastInsertRowid);
    this.stored++;
    return seq;
  }

  private statement(cache: Map<number, SqliteStatement>, size: number, sql: (size: number) => string) {
    let statement = cache.get(size);
    if (!statement) {
      statement = this.db.prepare(sql(size));
      cache.set(size, statement);
    }
    return statement;
  }
}

/** The largest power of two up to CHUNK that `left` rows fill. */
function chunk(left: number): number {
  let size = CHUNK;
  while (size > left) size >>= 1;
  return size;
}

const insertSql = (size: number) =>
  `INSERT INTO outbox (delivery_id, frame, created_at, origin) VALUES ${Array(size).fill("(?, ?, ?, ?)").join(", ")}`;

/**
 * Rows whose seq is one of the batch's and whose id is one of the batch's. A row with an
 * acknowledged id is to be deleted whichever seq it has, so the lists need not match in pairs: the
 * seq finds the rows, the id keeps a seq reused after a rolled-back insert from deleting another's.
 */
const deleteSql = (size: number) => {
  const list = Array(size).fill("?").join(", ");
  return `DELETE FROM outbox WHERE seq IN (${list}) AND delivery_id IN (${list})`;
};
