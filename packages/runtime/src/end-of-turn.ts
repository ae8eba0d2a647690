// Coalesces calls within one turn of the event loop into one run of `work` right after it
// (setImmediate). Used for group commits: everything that became durable-worthy in the same turn
// shares one SQLite transaction, so one fsync, instead of one each.

/** Returns `schedule`: call it as often as you like; `work` runs once, after the current turn. */
export function atEndOfTurn(work: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      work();
    });
  };
}
