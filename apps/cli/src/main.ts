import nodeModule from "node:module";
import { CommanderError } from "commander";
import { buildCli } from "./cli.ts";

// V8 keeps the compiled code of the parts each subcommand loads (the router, the host, the SDKs)
// in the OS's temp directory, so a start after the first (a service restarting, a second program
// on the machine) compiles less: about 0.12 CPU-s of a standalone's 0.7 here. A cache it cannot
// use is skipped silently (and a Node without the API, which the doctor then names, just starts).
nodeModule.enableCompileCache?.();

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
