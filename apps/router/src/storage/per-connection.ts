import type { SqliteDatabase } from "@phonework/runtime";

// What every store of one table on one connection shares (the table's sweeper, its dedup filter):
// one value per connection and table, made by the first store that asks, gone with the connection.

export class PerConnection<T> {
  private readonly byConnection = new WeakMap<SqliteDatabase, Map<string, T>>();

  /** The value kept for `table` on this connection, if a store made one. */
  get(db: SqliteDatabase, table: string): T | undefined {
    return this.byConnection.get(db)?.get(table);
  }

  /** Keeps `value` for `table` on this connection; returns it. */
  set(db: SqliteDatabase, table: string, value: T): T {
    let tables = this.byConnection.get(db);
    if (!tables) {
      tables = new Map();
      this.byConnection.set(db, tables);
    }
    tables.set(table, value);
    return value;
  }
}
