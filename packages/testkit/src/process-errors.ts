// Records unhandled rejections and uncaught exceptions while a test runs, so it can assert that
// hostile input caused none (a rejection nobody awaits does not fail the test that caused it).

export interface ProcessErrorWatch {
  /** Everything recorded so far. */
  readonly errors: unknown[];
  stop(): void;
}

export function watchProcessErrors(): ProcessErrorWatch {
  const errors: unknown[] = [];
  const record = (error: unknown) => errors.push(error);
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);
  return {
    errors,
    stop() {
      process.off("unhandledRejection", record);
      process.off("uncaughtException", record);
    },
  };
}
