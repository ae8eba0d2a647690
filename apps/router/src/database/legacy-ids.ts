import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { UserStateStore } from "../users/user-state-store.ts";

// Routers before the platform layer stored bare platform ids (`ou_abc`, and `local` for the
// terminal). Ids are now qualified by adapter name, so at start the bare ones are given the name
// of the adapter they can only have come from: the one chat adapter configured, or the terminal
// when there is none. With several adapters nothing can be known: they are left, with a warning
// naming how many (their owners then pair or share again).

/** SQL: the column's id has no adapter name in front. */
const bare = (column: string) => `instr(${column}, ':') = 0`;

export function qualifyLegacyIds(
  db: SqliteDatabase,
  userState: UserStateStore,
  chatAdapters: readonly string[],
  logger: Logger,
): void {
  const only =
    chatAdapters.length === 0 ? "terminal" : chatAdapters.length === 1 ? chatAdapters[0] : undefined;
  const columns: Array<[table: string, column: string]> = [
    ["nodes", "owner"],
    ["node_shares", "user_id"],
    ["join_codes", "owner"],
  ];
  const countBare = (table: string, column: string) =>
    (
      db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${bare(column)}`).get() as {
        n: number;
      }
    ).n;
  const total =
    columns.reduce((sum, [table, column]) => sum + countBare(table, column), 0) + userState.bareIds().length;
  if (total === 0) return;
  if (!only) {
    logger.warn(
      { bareIds: total, adapters: chatAdapters },
      "router.db holds ids from before adapters were named, and several adapters are configured: those owners and shares no longer match anyone until paired or shared again",
    );
    return;
  }
  db.transaction(() => {
    for (const [table, column] of columns)
      db.prepare(`UPDATE OR IGNORE ${table} SET ${column} = ? || ':' || ${column} WHERE ${bare(column)}`).run(
        only,
      );
  })();
  userState.qualifyBareIds(only);
  logger.info({ adapter: only, ids: total }, "qualified ids stored before adapters were named");
}
