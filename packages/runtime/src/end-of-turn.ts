// Coalesces calls within one turn of the event loop into one run of `work` right after it
// (setImmediate). Used for group commits: everything that became durable-worthy in the same turn
// shares one SQLite transaction, so one fsync, instead of one each.

/** Returns `schedule`: call it as often as you like; `work` runs once, after the current turn. */
export function atEndOfTurn(work: () => void): () => void {
  let queued = false;
  // One callback for every turn: scheduling allocates nothing but the Immediate (it is asked for
  // on per-message paths: the channel log, the outbox's commits).
  const run = () => {
    queued = false;
    work();
  };
  return () => {
    if (queued) return;
    queued = true;
    setImmediate(run);
  };
}
