import { randomBytes } from "node:crypto";
import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { ExpiringRows } from "../storage/expiring-rows.ts";

// Buttons the router has put under messages. A platform gives back only an opaque id when one is
// pressed (Telegram: at most 64 bytes of callback data), and that id comes from the outside: it
// is looked up here, honoured only for the user the buttons were sent to, and each row answers
// once — Approve and Deny cannot both happen, and a second press is told it was already answered.
// Kept in router.db so a button still works after a restart.

export const BUTTONS_MIGRATION = `
  CREATE TABLE chat_buttons (
    id TEXT PRIMARY KEY,
    row_id TEXT NOT NULL,
    adapter TEXT NOT NULL,
    user_id TEXT NOT NULL,
    label TEXT NOT NULL,
    command TEXT NOT NULL,
    at INTEGER NOT NULL,
    answered_at INTEGER
  );
  CREATE INDEX chat_buttons_row ON chat_buttons (row_id);
  CREATE INDEX chat_buttons_at ON chat_buttons (at);`;

export interface ButtonSpec {
  label: string;
  command: string;
}

export type ButtonPressResult =
  | { kind: "pressed"; label: string; command: string }
  | { kind: "unknown" }
  | { kind: "not_yours" }
  | { kind: "answered" };

const newId = () => randomBytes(12).toString("base64url");

export class ButtonStore {
  private readonly sql: PreparedStatements;
  private readonly expiring: ExpiringRows;

  constructor(
    private readonly db: SqliteDatabase,
    ttlMs: number,
    private readonly now: () => number,
  ) {
    this.sql = new PreparedStatements(db);
    this.expiring = new ExpiringRows(db, "chat_buttons", ttlMs, now);
  }

  static inMemory(ttlMs: number, now: () => number): ButtonStore {
    return new ButtonStore(openDatabase(":memory:", { migrations: [BUTTONS_MIGRATION] }), ttlMs, now);
  }

  /** Registers rows of buttons for one user; returns the ids to put on the platform's buttons. */
  register(
    adapter: string,
    userId: string,
    rows: readonly (readonly ButtonSpec[])[],
  ): Array<Array<{ label: string; data: string }>> {
    this.expiring.sweepIfDue();
    const insert = this.sql.sql(
      "INSERT INTO chat_buttons (id, row_id, adapter, user_id, label, command, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    return this.db.transaction(() =>
      rows.map((row) => {
        const rowId = newId();
        return row.map((button) => {
          const id = newId();
          insert.run(id, rowId, adapter, userId, button.label, button.command, this.now());
          return { label: button.label, data: id };
        });
      }),
    )();
  }

  /** A press by `userId` on `adapter`: the command to run, or why there is none. */
  press(adapter: string, id: string, userId: string): ButtonPressResult {
    return this.db.transaction((): ButtonPressResult => {
      const button = this.sql
        .sql("SELECT row_id, user_id, label, command FROM chat_buttons WHERE id = ? AND adapter = ?")
        .get(id, adapter) as { row_id: string; user_id: string; label: string; command: string } | undefined;
      if (!button) return { kind: "unknown" };
      if (button.user_id !== userId) return { kind: "not_yours" };
      const answered = this.sql
        .sql("SELECT 1 FROM chat_buttons WHERE row_id = ? AND answered_at IS NOT NULL LIMIT 1")
        .get(button.row_id);
      if (answered) return { kind: "answered" };
      this.sql.sql("UPDATE chat_buttons SET answered_at = ? WHERE row_id = ?").run(this.now(), button.row_id);
      return { kind: "pressed", label: button.label, command: button.command };
    })();
  }
}
