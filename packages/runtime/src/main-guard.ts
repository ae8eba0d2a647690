import { ConfigError } from "./config-loader.ts";
import { StartupError } from "./startup-error.ts";

/** Runs a program's entry point: configuration problems print one clear message and exit 2. */
export function runMain(main: () => Promise<void>, stderr: NodeJS.WritableStream = process.stderr): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      stderr.write(`phonework: ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof StartupError) {
      stderr.write(`phonework: ${error.message}\n`);
      process.exit(1);
    }
    stderr.write(
      `phonework: fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
