// Everything the bench starts registers how to undo it here; run.ts undoes it all at the end,
// on failure and on Ctrl-C, newest first.

export class Cleanup {
  private readonly steps: Array<() => unknown> = [];

  add(step: () => unknown): void {
    this.steps.push(step);
  }

  async runAll(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        console.error("cleanup step failed:", error);
      }
    }
  }
}
