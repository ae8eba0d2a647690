import { Argument, Command } from "commander";
import {
  type ConfigFlag,
  flagArguments,
  programArgs,
  withConfigFlags,
  withSaveConfig,
} from "./config-flags.ts";
import { HELP_AFTER } from "./help-texts.ts";
import { APPS, type AppName } from "./programs/app-name.ts";
import { phoneworkVersion } from "./version.ts";

// `phonework`: one executable for every role. Each subcommand loads only its own app (dynamic
// imports), so `phonework host` never loads the Feishu SDK and `--help` loads nothing.

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where a command's exit status goes (doctor: the number of ❌). */
  setExitCode: (code: number) => void;
}

export function buildCli(io: CliIo): Command {
  const program = new Command("phonework")
    .description("Run your own computers from a chat app.")
    .version(phoneworkVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .addHelpText("after", HELP_AFTER.program);

  withConfigFlags(
    withSaveConfig(program.command("standalone")).description(
      "router and host in one process on this PC; chats on the configured platforms, else this terminal",
    ),
    PROGRAM_FLAGS.standalone,
  )
    .addHelpText("after", HELP_AFTER.standalone)
    .action(async (options: Record<string, unknown>) => {
      const { runStandalone } = await import("@phonework/standalone");
      await runStandalone(programArgs(options));
    });

  withConfigFlags(
    withSaveConfig(program.command("router")).description(
      "the router (public VPS): chat platforms in, hosts over /ws/node",
    ),
    PROGRAM_FLAGS.router,
  )
    .addHelpText("after", HELP_AFTER.router)
    .action(async (options: Record<string, unknown>) => {
      const { runRouter } = await import("@phonework/router");
      await runRouter(programArgs(options));
    });

  withConfigFlags(
    withSaveConfig(program.command("host")).description(
      "a host (one per PC): dials out to the router and does the work",
    ),
    PROGRAM_FLAGS.host,
  )
    .addHelpText("after", HELP_AFTER.host)
    .action(async (options: Record<string, unknown>) => {
      const { runHost } = await import("@phonework/host");
      await runHost(programArgs(options));
    });

  withConfigFlags(
    program
      .command("pair")
      .description("print a one-time join code for a new host (on the router's machine, beside it)")
      .argument("<name>", "the new host's node id, e.g. home-pc")
      .option("--owner <user>", "the chat user id that owns the node (default: the only admin)"),
    ["dataDir"],
  )
    .addHelpText("after", HELP_AFTER.pair)
    .action(async (name: string, options: Record<string, unknown>) => {
      const { runPair } = await import("@phonework/router");
      const owner = typeof options.owner === "string" ? options.owner : undefined;
      await runPair(programArgs(options), { name, owner }, io.stdout);
    });

  withConfigFlags(
    program
      .command("doctor")
      .description("check this machine's setup; one line per check (✅ ⚠️ ❌), exit code = number of ❌")
      .addArgument(appArgument("what to check", false).default("standalone"))
      .option("--offline", "skip the checks that reach the network (router, model endpoint)"),
    ["dataDir", "workingDir", "routerUrl", "nodeId"],
  )
    .addHelpText("after", HELP_AFTER.doctor)
    .action(async (app: AppName, options: Record<string, unknown>) => {
      const { runDoctor } = await import("./doctor/run-doctor.ts");
      const failures = await runDoctor({
        app,
        args: programArgs(options),
        offline: options.offline === true,
        env: process.env,
        out: io.stdout,
      });
      io.setExitCode(failures);
    });

  const service = program
    .command("service")
    .description("run PhoneWork as a service: systemd on Linux, launchd on macOS")
    .addHelpText("after", HELP_AFTER.service);
  for (const [action, description] of [
    ["install", "write and enable the service (a user unit; --system for a system unit)"],
    ["uninstall", "stop, disable and remove the service"],
    ["status", "is the service installed and running"],
  ] as const) {
    withConfigFlags(
      service
        .command(action)
        .description(description)
        .addArgument(appArgument("which program the service runs"))
        .option("--system", "a system-wide unit (root) instead of one for this user")
        .option("--print", "only print the unit file and the steps; change nothing"),
      PROGRAM_FLAGS.host,
    )
      .addHelpText("after", HELP_AFTER.service)
      .action(async (app: AppName, options: Record<string, unknown>) => {
        const { runService } = await import("./service/run-service.ts");
        // The service command takes every program's flags (the host's are all of them); each app its own.
        const foreign = PROGRAM_FLAGS.host.filter((name) => !PROGRAM_FLAGS[app].includes(name));
        const misplaced = flagArguments(options, foreign).filter((arg) => arg.startsWith("--"));
        if (misplaced.length > 0) {
          io.stderr.write(`phonework service: ${misplaced.join(", ")}: not a setting of phonework ${app}\n`);
          io.setExitCode(2);
          return;
        }
        const code = await runService({
          action,
          app,
          flags: flagArguments(options, PROGRAM_FLAGS[app]),
          args: programArgs(options),
          configPath: typeof options.config === "string" ? options.config : undefined,
          system: options.system === true,
          printOnly: options.print === true,
          env: process.env,
          out: io.stdout,
        });
        io.setExitCode(code);
      });
  }
  return program;
}

/** The key flags each program takes (and `service install <app>` bakes into its unit). */
const PROGRAM_FLAGS: Record<AppName, readonly ConfigFlag[]> = {
  standalone: ["dataDir", "workingDir", "nodeId"],
  router: ["dataDir"],
  host: ["dataDir", "workingDir", "routerUrl", "join", "nodeId"],
};

/** An argument naming one of the programs; commander refuses any other value with a clear message. */
function appArgument(description: string, required = true): Argument {
  return new Argument(required ? "<app>" : "[app]", description).choices(APPS);
}
