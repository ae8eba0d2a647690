// At most `perTurn` jobs run in one turn of the event loop; the rest run in later turns, in order
// (setImmediate, so timers and chat I/O run between batches). Used for node upgrades and for
// registrations (handshake-admission.ts): each is work the loop owes before it answers chat again.

export class TurnShare {
  private startedThisTurn = 0;
  private turnReset = false;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly perTurn: number) {}

  /** Runs `job` in this turn if its share is not used up, else in a later turn. */
  schedule(job: () => void): void {
    if (this.startedThisTurn < this.perTurn && this.waiting.length === 0) {
      this.startedThisTurn++;
      this.resetAtNextTurn();
      job();
      return;
    }
    this.waiting.push(job);
    this.resetAtNextTurn();
  }

  private resetAtNextTurn(): void {
    if (this.turnReset) return;
    this.turnReset = true;
    setImmediate(() => {
      this.turnReset = false;
      this.startedThisTurn = 0;
      const batch = this.waiting.splice(0, this.perTurn);
      this.startedThisTurn = batch.length;
      if (this.waiting.length > 0 || batch.length > 0) this.resetAtNextTurn();
      for (const job of batch) job();
    });
  }
}
