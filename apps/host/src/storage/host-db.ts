import { openDatabase, type SqliteDatabase } from "@phonework/runtime";
import { SESSIONS_MIGRATION } from "../coding/session-store.ts";
import { OUTBOX_MIGRATION } from "../link/outbox.ts";
import { JOBS_EVENTS_MIGRATION, JOBS_MIGRATION } from "../schedule/job-store.ts";
import { TASKS_MIGRATION } from "../tasks/task-store.ts";
import { PLANS_MIGRATION, PLANS_REQUEST_MIGRATION } from "../workers/plan-ledger.ts";
import { CHANNEL_MEMBERS_MIGRATION } from "../workspace/channel-access.ts";

// The host's SQLite file: the durable outbox, scheduled jobs and workspace events, background
// tasks, coding sessions and Master/Worker plans. synchronous=FULL because the outbox promises that
// what it accepted survives a crash or a power cut. Append-only: each entry moves the schema one
// version forward.
const HOST_MIGRATIONS = [
  OUTBOX_MIGRATION,
  JOBS_MIGRATION,
  TASKS_MIGRATION,
  SESSIONS_MIGRATION,
  PLANS_MIGRATION,
  JOBS_EVENTS_MIGRATION,
  CHANNEL_MEMBERS_MIGRATION,
  PLANS_REQUEST_MIGRATION,
];

export function openHostDatabase(path: string): SqliteDatabase {
  return openDatabase(path, { migrations: HOST_MIGRATIONS, synchronous: "FULL" });
}
