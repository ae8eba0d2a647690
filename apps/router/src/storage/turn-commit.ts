import type { SqliteDatabase, SqliteStatement } from "@phonework/runtime";

// One commit per turn of the event loop for what the router makes durable on a message's path
// (the intake's stored message, the request's origin, the delivered id, the "handled" mark):
// writes queued during a turn run, in the order they were queued, in one transaction right after
// it (setImmediate), each in a savepoint of its own so one failing write fails only itself (a write
// that is one SQL statement needs none: SQLite undoes a failed statement by itself, and a savepoint
// plus its release were two of a message's statements, the profile's largest SQLite share). The
// promise `run` returns settles only after that transaction committed, so whoever acknowledges
// (to the platform, to a host) does it from there: an ack never leaves before its row is durable,
// and a crash between the commit and the ack costs a redelivery, never a loss.
//
// A connection has one transaction, so there is one batcher per connection (`TurnCommit.of`).

/** A queued write and whoever hears how it went: a waiter (`run`), or only an error (`soon`: no resolve). */
interface Queued {
  write: () => unknown;
  resolve: ((value: unknown) => void) | undefined;
  reject: (error: unknown) => void;
  /** Runs one SQL statement and nothing else that can fail after it: needs no savepoint. */
  oneStatement: boolean;
}

/** Not a closure per write: the bundle's keepNames makes each named one a defineProperty. */
function settle(queued: Queued, error: unknown, value: unknown): void {
  if (error) queued.reject(error);
  else queued.resolve?.(value);
}

export interface WriteOptions {
  /**
   * The write runs exactly one SQL statement (and nothing that can throw after it): if it fails,
   * SQLite has already undone it, so it gets no savepoint of its own. A write of several statements
   * must not say so: one failing midway would leave the others' effects in the commit. (Nor may a
   * statement with OR FAIL, which keeps what it changed before failing.)
   */
  oneStatement?: boolean;
}

/** How long a write that nobody waits for may wait for a commit that happens anyway. */
const LATER_MS = 50;

export class TurnCommit {
  private static readonly perConnection = new WeakMap<SqliteDatabase, TurnCommit>();

  /** The batcher of this connection (created on first use). */
  static of(db: SqliteDatabase): TurnCommit {
    let turn = TurnCommit.perConnection.get(db);
    if (!turn) {
      turn = new TurnCommit(db);
      TurnCommit.perConnection.set(db, turn);
    }
    return turn;
  }

  /** Transactions committed, writes they carried and savepoints taken, since the start (for the bench). */
  readonly stats = { commits: 0, writes: 0, savepoints: 0 };
  private queue: Queued[] = [];
  private later: Queued[] = [];
  private scheduled = false;
  private laterTimer: NodeJS.Timeout | undefined;

  private sqlStatements:
    | Record<"begin" | "savepoint" | "release" | "rollbackTo" | "commit" | "rollback", SqliteStatement>
    | undefined;

  private constructor(private readonly db: SqliteDatabase) {}

  private statements() {
    this.sqlStatements ??= {
      begin: this.db.prepare("BEGIN"),
      savepoint: this.db.prepare("SAVEPOINT turn_write"),
      release: this.db.prepare("RELEASE turn_write"),
      rollbackTo: this.db.prepare("ROLLBACK TO turn_write"),
      commit: this.db.prepare("COMMIT"),
      rollback: this.db.prepare("ROLLBACK"),
    };
    return this.sqlStatements;
  }

  /** Runs `write` in this turn's transaction; resolves with its result once that transaction committed. */
  run<T>(write: () => T, options: WriteOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        write,
        resolve: resolve as (value: unknown) => void,
        reject,
        oneStatement: options.oneStatement === true,
      });
      this.schedule();
    });
  }

  /**
   * A write nobody waits for: it joins the next commit that happens anyway, or is committed within
   * LATER_MS. For marks whose loss in a crash only repeats work (a message handled again).
   */
  soon(write: () => unknown, onError: (error: unknown) => void, options: WriteOptions = {}): void {
    this.later.push({
      write,
      resolve: undefined,
      reject: onError,
      oneStatement: options.oneStatement === true,
    });
    this.laterTimer ??= setTimeout(() => {
      this.laterTimer = undefined;
      this.flush();
    }, LATER_MS);
  }

  /** Commits everything queued now (also before the database closes). */
  flush(): void {
    this.scheduled = false;
    clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
    const batch = this.queue.concat(this.later);
    this.queue = [];
    this.later = [];
    if (batch.length === 0) return;
    if (!this.db.open) {
      // Closed without a flush first (a test's teardown): nothing can be committed any more.
      for (const queued of batch) settle(queued, new Error("the database is closed"), undefined);
      return;
    }
    const outcomes: Array<{ error: unknown; value: unknown }> = [];
    const sql = this.statements();
    try {
      sql.begin.run();
      const [only] = batch;
      if (batch.length === 1 && only) {
        // Alone in its transaction: no savepoint needed, a failed write rolls the whole of it back.
        try {
          outcomes.push({ error: undefined, value: only.write() });
        } catch (error) {
          if (this.db.inTransaction) sql.rollback.run();
          settle(only, error ?? new Error("write failed"), undefined);
          return;
        }
      } else
        for (const { write, oneStatement } of batch) {
          if (oneStatement) {
            try {
              outcomes.push({ error: undefined, value: write() });
            } catch (error) {
              // A failed statement is undone by SQLite, unless the error ended the whole transaction
              // (I/O error, disk full): then nothing of the batch is durable, as when the commit fails.
              if (!this.db.inTransaction) throw error;
              outcomes.push({ error: error ?? new Error("write failed"), value: undefined });
            }
            continue;
          }
          // A savepoint per write, rolled back alone if it throws. (Statements, not db.transaction(),
          // which builds a new wrapper per call: that showed in the profile.) Writes that use
          // db.transaction() themselves get a nested savepoint from better-sqlite3.
          sql.savepoint.run();
          this.stats.savepoints++;
          try {
            outcomes.push({ error: undefined, value: write() });
            sql.release.run();
          } catch (error) {
            // An error that ended the transaction took the savepoint with it: the batch fails with
            // that error (a full disk), not with the rollback's "no such savepoint".
            if (!this.db.inTransaction) throw error;
            sql.rollbackTo.run();
            sql.release.run();
            outcomes.push({ error: error ?? new Error("write failed"), value: undefined });
          }
        }
      sql.commit.run();
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the batch is durable.
      if (this.db.inTransaction) sql.rollback.run();
      for (const queued of batch) settle(queued, error ?? new Error("commit failed"), undefined);
      return;
    }
    this.stats.commits++;
    this.stats.writes += batch.length;
    for (let i = 0; i < batch.length; i++) {
      const queued = batch[i];
      if (queued) settle(queued, outcomes[i]?.error, outcomes[i]?.value);
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }
}
