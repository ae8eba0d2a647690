import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { BUTTONS_MIGRATION } from "../chat/button-store.ts";
import { CONSOLE_MESSAGES_MIGRATION } from "../console/console-history.ts";
import { CONSOLE_SESSIONS_MIGRATION } from "../console/console-sessions.ts";
import { CONSOLE_LINKS_MIGRATION } from "../console/login-links.ts";
import { WEB_PUSH_MIGRATION, WEB_PUSH_NODES_MIGRATION } from "../console/push/push-store.ts";
import { DELIVERED_MIGRATION, DELIVERED_WITHOUT_ROWID_MIGRATION } from "../delivery/delivered-store.ts";
import { REQUESTS_MIGRATION, REQUESTS_WITHOUT_ROWID_MIGRATION } from "../delivery/request-log.ts";
import {
  CHAT_INBOX_MIGRATION,
  CHAT_INBOX_NO_AUTOINCREMENT_MIGRATION,
  CHAT_INBOX_REQUEST_KEY_MIGRATION,
  CHAT_INBOX_UNHANDLED_ONLY_MIGRATION,
} from "../intake/chat-inbox.ts";
import { JOIN_CODES_REPLACE_MIGRATION, NODES_MIGRATION } from "../pairing/node-store.ts";
import { ROUTING_USAGE_MIGRATION } from "../routing/routing-usage.ts";
import { SEEN_EVENTS_MIGRATION, SEEN_EVENTS_WITHOUT_ROWID_MIGRATION } from "../storage/seen-events.ts";
import {
  USER_STATE_DETAILS_MIGRATION,
  USER_STATE_MIGRATION,
  USER_STATE_VOICE_MIGRATION,
} from "../users/user-state-store.ts";
import { VOICE_NOTES_MIGRATION } from "../voice/voice-notes.ts";
import { PLAN_GRANTS_MIGRATION } from "../workers/plan-grants.ts";

/**
 * The TTL tables on a message's path without their `at` indexes, rows kept: each message writes one
 * B-tree (and its WAL pages) fewer in each, and ExpiringRows sweeps them along their key instead.
 */
export const TTL_TABLES_WITHOUT_AT_INDEX_MIGRATION = `
  DROP INDEX seen_events_at;
  DROP INDEX delivered_at;
  DROP INDEX requests_at;`;

// The router's SQLite file. Append-only migrations: each entry moves the schema one version forward.
export const ROUTER_MIGRATIONS = [
  DELIVERED_MIGRATION,
  SEEN_EVENTS_MIGRATION,
  NODES_MIGRATION,
  REQUESTS_MIGRATION,
  CHAT_INBOX_MIGRATION,
  BUTTONS_MIGRATION,
  CONSOLE_LINKS_MIGRATION,
  CONSOLE_SESSIONS_MIGRATION,
  PLAN_GRANTS_MIGRATION,
  USER_STATE_MIGRATION,
  JOIN_CODES_REPLACE_MIGRATION,
  USER_STATE_DETAILS_MIGRATION,
  CONSOLE_MESSAGES_MIGRATION,
  WEB_PUSH_MIGRATION,
  WEB_PUSH_NODES_MIGRATION,
  VOICE_NOTES_MIGRATION,
  ROUTING_USAGE_MIGRATION,
  USER_STATE_VOICE_MIGRATION,
  CHAT_INBOX_REQUEST_KEY_MIGRATION,
  // The keyed tables of a message's path as WITHOUT ROWID, and the inbox without AUTOINCREMENT:
  // fewer B-trees (and WAL pages) per message; each rebuilds its table and keeps its rows.
  SEEN_EVENTS_WITHOUT_ROWID_MIGRATION,
  DELIVERED_WITHOUT_ROWID_MIGRATION,
  REQUESTS_WITHOUT_ROWID_MIGRATION,
  CHAT_INBOX_NO_AUTOINCREMENT_MIGRATION,
  CHAT_INBOX_UNHANDLED_ONLY_MIGRATION,
  TTL_TABLES_WITHOUT_AT_INDEX_MIGRATION,
];

/**
 * synchronous=NORMAL (with WAL): a commit survives the router process crashing or being killed,
 * which is what a restart needs; only a power cut of the VPS can lose the last ones, and then a
 * host's resend could show the user an item twice. FULL would cost an fsync per delivered item.
 * The host's outbox, which holds the only copy of an answer, is FULL.
 */
export function openRouterDatabase(path: string): SqliteDatabase {
  return openDatabase(path, { migrations: ROUTER_MIGRATIONS, synchronous: "NORMAL" });
}

/** Where the router keeps its database under DATA_DIR. */
export const routerDatabasePath = (dataDir: string): string => join(dataDir, "router", "router.db");
