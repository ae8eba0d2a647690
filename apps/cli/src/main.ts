import { CommanderError } from "commander";
import { buildCli } from "./cli.ts";

// The `phonework` executable. Usage errors exit 2, like a bad config; --help and --version exit 0.
// The runtime (config, logging, SQLite) is loaded by the subcommand that needs it, and here only
// to report a subcommand's error, so `--version` and `--help` load commander and nothing else.
async function main(): Promise<void> {
  const cli = buildCli({
    stdout: process.stdout,
    stderr: process.stderr,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  });
  try {
    await cli.parseAsync(process.argv);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exit(error.exitCode === 0 ? 0 : 2); // commander has printed the message
  }
}

main().catch(async (error: unknown) => {
  const { exitOnError } = await import("@phonework/runtime");
  exitOnError(error);
});
