// Keeps the start and the end of a stream of output within a byte budget, and says how
// much was cut in between. The end matters most for logs and test runs; the start for errors.

export class BoundedOutput {
  private head = "";
  private tail = "";
  private dropped = 0;

  constructor(private readonly limit: number) {}

  append(chunk: string): void {
    const half = Math.floor(this.limit / 2);
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    if (!chunk) return;
    this.tail += chunk;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  toString(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n…[${this.dropped} characters truncated]…\n${this.tail}`;
  }
}
