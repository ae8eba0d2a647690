// Ids as Slack writes them: U… users, D… DMs, C… channels, F… files, Ev… events, and message
// timestamps that only grow (`<seconds>.<6 digits>`).

export class IdSource {
  private counter = 0;
  private readonly base = Math.floor(Date.now() / 1000);

  next(prefix: string): string {
    this.counter += 1;
    return `${prefix}${String(this.counter).padStart(8, "0")}`;
  }

  ts(): string {
    this.counter += 1;
    return `${this.base}.${String(this.counter).padStart(6, "0")}`;
  }
}
