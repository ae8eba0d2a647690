import type { SqliteDatabase, SqliteStatement } from "@phonework/runtime";

// The outbox's table, written with as few statements as a batch allows: the rows of one commit go
// in by multi-row INSERTs (a statement per power of two up to CHUNK, built when first needed), and
// an acknowledged row is deleted by its `seq` (the rowid: no index lookup) and its delivery id.

/** A row to store: delivery id, encoded frame, created at, origin (JSON). */
export type OutboxRow = [deliveryId: string, encoded: string, createdAt: number, origin: string | null];

/** Rows per INSERT at most. */
const CHUNK = 16;

export class OutboxRows {
  /** Rows stored and deleted since the start (tests and the bench read them). */
  stored = 0;
  deleted = 0;
  /** INSERT statements by how many rows each stores. */
  private readonly inserts = new Map<number, SqliteStatement>();
  private readonly remove: SqliteStatement;
  private readonly removeOld: SqliteStatement;
  /** Built once (better-sqlite3 makes a wrapper for each `transaction` call). */
  readonly insertAll: (rows: readonly OutboxRow[], seqs: Map<string, number | undefined>) => void;
  readonly deleteAll: (acked: ReadonlyArray<[deliveryId: string, seq: number | undefined]>) => void;

  constructor(private readonly db: SqliteDatabase) {
    this.remove = db.prepare("DELETE FROM outbox WHERE seq = ? AND delivery_id = ?");
    // Only for an item whose row was never known (a caller's transaction that stored it failed).
    this.removeOld = db.prepare("DELETE FROM outbox WHERE delivery_id = ?");
    this.insertAll = db.transaction((rows, seqs) => {
      let at = 0;
      while (at < rows.length) {
        let size = CHUNK;
        while (size > rows.length - at) size >>= 1;
        const args: Array<string | number | null> = [];
        for (let i = at; i < at + size; i++) args.push(...(rows[i] as OutboxRow));
        // Rowids of one statement's rows are consecutive (each is the table's largest plus one).
        const last = Number(this.insertOf(size).run(...args).lastInsertRowid);
        for (let i = 0; i < size; i++) seqs.set((rows[at + i] as OutboxRow)[0], last - size + 1 + i);
        at += size;
      }
      this.stored += rows.length;
    });
    this.deleteAll = db.transaction((acked) => {
      for (const [deliveryId, seq] of acked)
        this.deleted += (
          seq === undefined ? this.removeOld.run(deliveryId) : this.remove.run(seq, deliveryId)
        ).changes;
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
    const seq = Number(this.insertOf(1).run(...row).lastInsertRowid);
    this.stored++;
    return seq;
  }

  private insertOf(size: number): SqliteStatement {
    let statement = this.inserts.get(size);
    if (!statement) {
      const values = Array.from({ length: size }, () => "(?, ?, ?, ?)").join(", ");
      statement = this.db.prepare(
        `INSERT INTO outbox (delivery_id, frame, created_at, origin) VALUES ${values}`,
      );
      this.inserts.set(size, statement);
    }
    return statement;
  }
}
