import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { DELIVERED_MIGRATION } from "./delivered-store.ts";

// The router's SQLite file. Append-only migrations: each entry moves the schema one version forward.
const ROUTER_MIGRATIONS = [DELIVERED_MIGRATION];

export function openRouterDatabase(path: string): SqliteDatabase {
  return openDatabase(path, { migrations: ROUTER_MIGRATIONS, synchronous: "FULL" });
}
