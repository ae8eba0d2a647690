import type { SqliteDatabase } from "@phonework/runtime";
import { SESSIONS_MIGRATION } from "./coding/session-store.ts";
import { OUTBOX_LEAN_MIGRATION, OUTBOX_MIGRATION, OUTBOX_ORIGIN_MIGRATION } from "./delivery/outbox.ts";
import { MODEL_VISION_MIGRATION } from "./images/vision-support.ts";
import { SESSION_TURNS_MIGRATION } from "./overview/session-activity.ts";
import { JOBS_EVENTS_MIGRATION, JOBS_MIGRATION } from "./schedule/job-store.ts";
import { openHostDatabase } from "./storage/host-db.ts";
import { TASKS_MIGRATION } from "./tasks/task-store.ts";
import { USAGE_MIGRATION } from "./usage/usage-store.ts";
import { PLANS_MIGRATION, PLANS_REQUEST_MIGRATION } from "./workers/plan-ledger.ts";
import { CHANNEL_MEMBERS_MIGRATION } from "./workspace/channel-access.ts";

// The host's state.db: every feature's tables, in the order their migrations shipped. Append only:
// each entry moves the schema one version forward on every host that already has the file.
export const HOST_MIGRATIONS = [
  OUTBOX_MIGRATION,
  JOBS_MIGRATION,
  TASKS_MIGRATION,
  SESSIONS_MIGRATION,
  PLANS_MIGRATION,
  JOBS_EVENTS_MIGRATION,
  CHANNEL_MEMBERS_MIGRATION,
  PLANS_REQUEST_MIGRATION,
  OUTBOX_ORIGIN_MIGRATION,
  SESSION_TURNS_MIGRATION,
  MODEL_VISION_MIGRATION,
  USAGE_MIGRATION,
  OUTBOX_LEAN_MIGRATION,
];

export function openStateDatabase(path: string): SqliteDatabase {
  return openHostDatabase(path, HOST_MIGRATIONS);
}
