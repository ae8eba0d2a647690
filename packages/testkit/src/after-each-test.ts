// Teardown that a support module (not a test file) owns: a support module is imported once per
// worker when test files share modules (isolate: false), so it cannot register vitest's afterEach
// at import — that would hold only for the first file. It registers here instead, and the suite's
// setup file (vitest-setup.ts) runs every registered hook after each test of every file.

const hooks = new Set<() => unknown>();

/** Runs `hook` after every test, whichever file it is in. */
export function afterEachTest(hook: () => unknown): void {
  hooks.add(hook);
}

/** For the setup file: every registered hook, in the order they were registered. */
export async function runAfterEachTest(): Promise<void> {
  for (const hook of hooks) await hook();
}
