import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { CodingTurns } from "../contracts/coding-turns.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { Outbox } from "../delivery/outbox.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import { createCheckRunner } from "./check-runner.ts";
import { EventsDirectory } from "./events-directory.ts";
import { JobStore } from "./job-store.ts";
import { scheduleCommands } from "./schedule-commands.ts";
import { ScheduleService } from "./schedule-service.ts";
import { createScheduleTools } from "./schedule-tools.ts";
import { type EventRunner, Scheduler } from "./scheduler.ts";

// Reminders, checks and workspace events: the job store, the scheduler that runs what is due, the
// events directory that turns files into jobs, and the tools and commands that create them.

export interface ScheduleFeatureDeps {
  config: HostConfig;
  db: SqliteDatabase;
  outbox: Outbox;
  sandbox: ShellSandbox;
  /** Check prompts go to the user's coding session. */
  coding: CodingTurns;
  workspace: { eventsDir: string };
  /** Adds a sent message to the chat's context, so the assistant knows what it said. */
  remember: (owner: ChatOwner, text: string) => void;
  overview: { changed(userId: string): void };
  transaction: <T>(fn: () => T) => T;
  now: () => number;
  logger: Logger;
}

export interface ScheduleFeature extends HostFeature {
  readonly jobs: JobStore;
  readonly scheduler: Scheduler;
  readonly schedules: ScheduleService;
  /** Events wake the assistant from now on (without it, an event's text is sent as written). */
  wakeWith(run: EventRunner): void;
}

export function createScheduleFeature(deps: ScheduleFeatureDeps): ScheduleFeature {
  const { config, db, now, transaction } = deps;
  const tickMs = config.SCHEDULER_TICK_S * 1000;
  const jobs = new JobStore(db, now);
  const limits = { minIntervalS: config.SCHEDULE_MIN_INTERVAL_S, defaultTimeZone: config.TIME_ZONE };
  const scheduler = new Scheduler({
    db,
    store: jobs,
    outbox: deps.outbox,
    runCheck: createCheckRunner({
      workingDir: config.WORKING_DIR,
      timeoutMs: config.BACKGROUND_TIMEOUT_S * 1000,
      coding: deps.coding,
      sandbox: deps.sandbox,
    }),
    remember: deps.remember,
    now,
    logger: deps.logger.child({ component: "scheduler" }),
    lateAfterMs: config.SCHEDULE_LATE_AFTER_S * 1000,
  });
  deps.outbox.onSettled((result) => scheduler.handleDelivery(result));
  const events = new EventsDirectory({
    dir: deps.workspace.eventsDir,
    store: jobs,
    transaction,
    limits,
    now,
    logger: deps.logger.child({ component: "events" }),
    onStored: (job) => {
      void scheduler.sweep();
      deps.overview.changed(job.user_id);
    },
  });
  const schedules = new ScheduleService(jobs, limits, now, transaction, (job) => events.cancelled(job));
  return {
    name: "schedule",
    jobs,
    scheduler,
    schedules,
    tools: createScheduleTools(schedules),
    commands: scheduleCommands(schedules),
    wakeWith: (run) => scheduler.useEventRunner(run),
    start() {
      events.start(tickMs);
      scheduler.start(tickMs);
    },
    async stop() {
      events.close();
      await scheduler.stop();
    },
  };
}
