import {
  type FSWatcher,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Logger } from "@phonework/runtime";
import { ensurePrivateDir } from "@phonework/runtime";
import { type EventSource, eventJob, MAX_EVENT_FILE_BYTES, readEvent, sameEvent } from "./event-file.ts";
import type { ScheduledJob } from "./job.ts";
import type { JobStore, NewJob } from "./job-store.ts";
import type { PlanLimits } from "./plan-job.ts";
import type { Parsed } from "./when.ts";

// The workspace's events/ directory: each *.json file dropped there becomes a job in the
// scheduler. An immediate or one-shot event's file is removed once its job is committed; a
// periodic event's file stays and keys its job (edited: the job is replaced; deleted: cancelled).
// fs.watch on the one directory wakes a rescan soon; a rescan every scheduler tick catches what a
// watcher can miss. Files are small and few, so the work is synchronous: one rescan at a time.

export interface EventsDirectoryDeps {
  dir: string;
  store: JobStore;
  transaction: <T>(fn: () => T) => T;
  limits: PlanLimits;
  /** The scheduler's clock: when jobs are due. */
  now: () => number;
  logger: Logger;
  /** A job was stored: the scheduler can look at once (and the owner's overview changed). */
  onStored?: (job: ScheduledJob) => void;
  /** A file changed this recently may still be being written: it is read once it is this old. */
  settleMs?: number;
}

const isEventName = (name: string) => name.endsWith(".json") && !name.startsWith(".");

export class EventsDirectory {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;
  /** Periodic files as last read (name → stamp): an unchanged file is not read again. */
  private readonly seen = new Map<string, string>();
  private readonly settleMs: number;

  constructor(private readonly deps: EventsDirectoryDeps) {
    this.settleMs = deps.settleMs ?? 100;
  }

  start(rescanMs: number): void {
    ensurePrivateDir(this.deps.dir); // DATA_DIR stays owner-only
    try {
      this.watcher = watch(this.deps.dir, () => this.soon());
      this.watcher.on("error", (error) => {
        this.deps.logger.warn({ err: error }, "events directory watcher failed; rescanning on the tick only");
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (error) {
      this.deps.logger.warn({ err: error }, "cannot watch the events directory; rescanning on the tick only");
    }
    this.timer = setInterval(() => this.rescan(), rescanMs);
    this.timer.unref();
    this.rescan();
  }

  close(): void {
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.soonTimer);
  }

  /**
   * Looks at every file: a new or changed one becomes a job, a broken one becomes `.error`, and a
   * periodic event whose file is gone is cancelled.
   */
  rescan(): void {
    try {
      const periodic = new Map(this.deps.store.periodicEvents().map((job) => [job.event_file, job]));
      for (const name of this.list()) this.take(name, periodic.get(name));
      const present = new Set(this.list());
      for (const job of this.deps.store.periodicEvents()) {
        if (job.event_file === null || present.has(job.event_file)) continue;
        this.deps.store.cancel(job.user_id, job.id, "events: file deleted");
        this.seen.delete(job.event_file);
        this.deps.logger.info(
          { file: job.event_file, jobId: job.id },
          "periodic event file deleted; job cancelled",
        );
      }
    } catch (error) {
      this.deps.logger.error({ err: error }, "events directory rescan failed");
    }
  }

  /** A periodic event cancelled by the user (/cancel): its file goes too, or it would come back. */
  cancelled(job: ScheduledJob): void {
    if (job.event_file === null || job.cron === null || !isEventName(job.event_file)) return;
    rmSync(join(this.deps.dir, job.event_file), { force: true });
    this.seen.delete(job.event_file);
  }

  private soon(): void {
    clearTimeout(this.soonTimer);
    this.soonTimer = setTimeout(() => this.rescan(), this.settleMs);
    this.soonTimer.unref();
  }

  private list(): string[] {
    try {
      return readdirSync(this.deps.dir).filter(isEventName).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  /** Reads one file into a job; `current` is the pending job of a periodic event by this name. */
  private take(name: string, current: ScheduledJob | undefined): void {
    const path = join(this.deps.dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile()) return;
    // Compared with the file system's own (real) time, not the scheduler's clock.
    if (Date.now() - stat.mtimeMs < this.settleMs) {
      this.soon();
      return;
    }
    const stamp = `${stat.ino}-${stat.mtimeMs}-${stat.size}`;
    if (current && this.seen.get(name) === stamp) return;
    const planned = this.plan(path, stat.size, { file: name, stamp });
    if (!planned.ok) {
      this.reject(name, planned.error);
      return;
    }
    const job = planned.value;
    const log = this.deps.logger.child({ file: name });

    if (job.cron !== null) {
      this.seen.set(name, stamp);
      if (current && sameEvent(current, job)) return;
      const stored = this.deps.transaction(() => {
        if (current) this.deps.store.cancel(current.user_id, current.id, "events: file changed");
        return this.deps.store.create(job);
      });
      log.info({ jobId: stored.id, replaced: current?.id }, "periodic event scheduled");
      this.deps.onStored?.(stored);
      return;
    }
    const stored = this.deps.transaction(() => {
      // Stored before, and a crash came between the commit and the removal: only remove it now.
      if (this.deps.store.hasEvent(name, stamp)) return undefined;
      if (current) this.deps.store.cancel(current.user_id, current.id, "events: file changed");
      return this.deps.store.create(job);
    });
    rmSync(path, { force: true });
    this.seen.delete(name);
    if (!stored) return;
    log.info({ jobId: stored.id, dueAt: stored.due_at }, "event scheduled; file removed");
    this.deps.onStored?.(stored);
  }

  private plan(path: string, size: number, source: EventSource): Parsed<NewJob> {
    if (size > MAX_EVENT_FILE_BYTES)
      return { ok: false, error: `the file is ${size} bytes; an event file may have at most 64 KB` };
    const read = readEvent(readFileSync(path, "utf8"));
    return read.ok ? eventJob(read.value, source, this.deps.now(), this.deps.limits) : read;
  }

  /** `<file>.error`, with the reason beside it in `<file>.error.txt`; no longer a *.json, so read once. */
  private reject(name: string, reason: string): void {
    const path = join(this.deps.dir, name);
    try {
      renameSync(path, `${path}.error`);
      writeFileSync(`${path}.error.txt`, `${reason}\n`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      return;
    }
    this.seen.delete(name);
    this.deps.logger.warn({ file: name, reason }, "event file refused; renamed .error");
  }
}
