import { existsSync, renameSync } from "node:fs";
import { type Logger, readJsonFile, type SqliteDatabase } from "@phonework/runtime";
import { z } from "zod";
import { UserState, UserStateStore } from "./user-state-store.ts";

// Routers before router.db held user state kept it in DATA_DIR/router/users.json, rewritten whole
// on every change. At the first start with router.db's `user_state`, the file is read (through
// the schema it was written with), its users stored in one transaction, and only then renamed to
// users.json.bak: a start that fails before the rename reads it again and adds only the users not
// stored yet; after it, nothing reads the file any more.

const UsersFile = z.object({
  version: z.literal(1),
  users: z.record(z.string(), UserState),
});

/** router.db's user state, with users.json at `legacyPath` moved in first if it is still there. */
export function openUserState(db: SqliteDatabase, legacyPath: string, logger: Logger): UserStateStore {
  const store = UserStateStore.open(db);
  if (!existsSync(legacyPath)) return store;
  const { users } = readJsonFile(legacyPath, UsersFile, { version: 1, users: {} });
  const added = store.importUsers(users);
  renameSync(legacyPath, `${legacyPath}.bak`);
  logger.info({ users: added, kept: `${legacyPath}.bak` }, "moved users.json into router.db");
  return store;
}
