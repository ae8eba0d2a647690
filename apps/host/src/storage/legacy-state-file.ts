import { renameSync } from "node:fs";
import { type Logger, readJsonFile, type SqliteDatabase, StateFileError } from "@phonework/runtime";
import type { z } from "zod";

// Older hosts kept tasks and sessions in JSON files beside state.db. The first open after an
// upgrade moves the file's records into the database and renames the file `<name>.bak`, so it is
// imported once. A file that cannot be read is logged and moved aside: never a reason not to start.

export function importLegacyJsonFile<S extends z.ZodType>(
  db: SqliteDatabase,
  path: string,
  schema: S,
  store: (data: z.infer<S>) => void,
  logger?: Logger,
): void {
  const backup = `${path}.bak`;
  let data: z.infer<S> | undefined;
  try {
    data = readJsonFile(path, schema.optional(), undefined);
  } catch (error) {
    if (!(error instanceof StateFileError)) throw error;
    logger?.warn({ path, backup, reason: error.message }, "old state file unreadable: not imported");
    try {
      renameSync(path, backup);
    } catch {
      // Left where it is: the next start logs it again.
    }
    return;
  }
  if (data === undefined) return; // no such file: nothing to import
  const records = data;
  // Renamed last, inside the transaction: if the rename fails nothing is imported, and the next
  // open tries again instead of importing twice.
  db.transaction(() => {
    store(records);
    renameSync(path, backup);
  })();
  logger?.info({ path, backup }, "old state file imported into state.db");
}
