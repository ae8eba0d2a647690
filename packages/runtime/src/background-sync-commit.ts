import { closeSync, fdatasync, fdatasyncSync, openSync } from "node:fs";
import { resolve } from "node:path";
import type { Logger } from "./logger.ts";
import type { SqliteDatabase } from "./sqlite.ts";

// A commit whose disk flush runs beside the event loop instead of inside it (the host's outbox).
// A synchronous=FULL commit writes the WAL and then waits for its fsync on the main thread, and
// whatever the commit was for (an answer to send) waits with it: 0.2–1 ms per commit on a VPS
// disk, more at its tail. Here the transaction commits with synchronous=NORMAL, which already
// survives the process dying (the WAL's pages are in the kernel), and the same WAL file is then
// fdatasync'd on libuv's thread pool. The caller may act on the commit at once (send the answer);
// the flush that makes it survive a power cut finishes at the same moment it would have under
// FULL, so nothing a crash could find durable before is lost now: only the acting moved earlier.
// Every other commit on the connection keeps the database's own synchronous setting.

export class BackgroundSyncCommit {
  private readonly normal;
  private readonly restore;
  /** Resolved now, against the directory SQLite resolved it against when it opened the file. */
  private readonly walPath: string;
  private walFd: number | undefined;
  /** Committed since the last flush started. */
  private dirty = false;
  private flushQueued = false;
  private flushing = false;
  private closed = false;
  /** A failed background flush: every later commit waits for its own fsync again (FULL). */
  private failed = false;
  /** Commits made NORMAL here, and background flushes finished (tests read them). */
  readonly stats = { commits: 0, flushes: 0 };

  constructor(
    private readonly db: SqliteDatabase,
    private readonly logger: Logger,
  ) {
    const setting = String(db.pragma("synchronous", { simple: true }));
    this.normal = db.prepare("PRAGMA synchronous = NORMAL");
    this.restore = db.prepare(`PRAGMA synchronous = ${setting}`);
    this.walPath = `${resolve(db.name)}-wal`;
  }

  /**
   * Runs `write` (a better-sqlite3 transaction) committed without waiting for the disk, then
   * starts the WAL's flush in the background. Inside a caller's transaction it just runs: that
   * transaction's own commit decides.
   */
  commit(write: () => void): void {
    if (this.db.inTransaction || this.db.memory || this.failed || this.closed) {
      write();
      return;
    }
    this.normal.run();
    try {
      write();
    } finally {
      this.restore.run();
    }
    this.stats.commits++;
    this.dirty = true;
    // Started once the caller is done acting on the commit: handing the flush to the thread pool
    // wakes a thread, which on a small VM can take the caller's core for ~0.1 ms.
    if (!this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => {
        this.flushQueued = false;
        this.flushSoon();
      });
    }
  }

  /** For closing, before the database closes: what was committed is on disk when this returns. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const fd = this.dirty ? this.wal() : this.walFd;
    if (fd === undefined) return;
    try {
      if (this.dirty) fdatasyncSync(fd);
      this.dirty = false;
    } catch (error) {
      this.fail(error as Error);
    }
    if (!this.flushing) this.closeFd(); // else once the running flush is done with it
  }

  private flushSoon(): void {
    if (this.flushing || this.closed || !this.dirty) return; // a running flush starts the next one
    const fd = this.wal();
    if (fd === undefined) return;
    this.flushing = true;
    this.dirty = false;
    fdatasync(fd, (error) => {
      this.flushing = false;
      if (this.closed) return this.closeFd();
      if (error) return this.fail(error);
      this.stats.flushes++;
      this.flushSoon(); // committed again while this one ran
    });
  }

  /** The WAL file, opened once: checkpoints truncate or rewrite it in place, never replace it. */
  private wal(): number | undefined {
    if (this.walFd !== undefined) return this.walFd;
    try {
      this.walFd = openSync(this.walPath, "r+"); // write access: Windows flushes only with it
      return this.walFd;
    } catch (error) {
      this.fail(error as Error);
      return undefined;
    }
  }

  private closeFd(): void {
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.walFd = undefined;
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.logger.error(
      { err: error.message },
      "state database WAL could not be flushed in the background; commits wait for the disk from now on",
    );
    // What was committed since the last good flush is flushed by the next FULL commit.
  }
}
