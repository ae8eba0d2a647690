import type { SpawnedProcess } from "./spawn-process.ts";
import { makeTempDir } from "./temp-dir.ts";

// What a test file sets up and must take down: temp dirs, child processes, servers. Register the
// scope's `run` with vitest's afterEach (or afterAll); everything is undone newest first.

export class CleanupScope {
  private readonly steps: Array<() => void | Promise<void>> = [];

  add(step: () => void | Promise<void>): void {
    this.steps.push(step);
  }

  /** A fresh temp dir, removed at cleanup. */
  tempDir(): string {
    const dir = makeTempDir();
    this.add(dir.remove);
    return dir.path;
  }

  /** A child process, SIGKILLed at cleanup if it is still running. */
  track(child: SpawnedProcess): SpawnedProcess {
    this.add(() => child.kill("SIGKILL"));
    return child;
  }

  async run(): Promise<void> {
    for (const step of this.steps.splice(0).reverse()) await step();
  }
}
