import { type CommandRunner, firstLine } from "./command-runner.ts";
import type { ServiceSpec } from "./service-spec.ts";

// One service manager (systemd, launchd) as the `service` command sees it. The file format and
// the side effects live behind this, so the command reads the same for both.

export type ServiceAction = "install" | "uninstall" | "status";

export interface ServiceBackend {
  /** "a systemd user unit", for messages. */
  readonly kind: string;
  /** The unit's or agent's name: phonework-host.service, com.phonework.host. */
  readonly name: string;
  /** Where the file lives. */
  readonly file: string;
  render(spec: ServiceSpec): string;
  /** The rendered text with `lines` as comments at the top, still a valid file. */
  annotate(text: string, lines: readonly string[]): string;
  /** The shell commands a person runs to do `action` by hand (install: after saving the file). */
  manualSteps(action: ServiceAction): string[];
  /** Why the service manager cannot be used here, or undefined when it can. */
  unavailable(): Promise<string | undefined>;
  /** Each writes one line per step or fact to `out` and returns the exit code. */
  install(text: string, out: NodeJS.WritableStream): Promise<number>;
  uninstall(out: NodeJS.WritableStream): Promise<number>;
  status(out: NodeJS.WritableStream): Promise<number>;
}

/** A command as a person would type it: each word shell-quoted when it needs to be. */
export function shellLine(argv: readonly string[]): string {
  return argv
    .map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

/** `runs:` and `config:` lines for an installed service's command line. */
export function writeCommandFacts(argv: string[] | Error | undefined, out: NodeJS.WritableStream): void {
  if (argv === undefined || argv instanceof Error) {
    out.write(`runs: unreadable (${argv?.message ?? "no program arguments"})\n`);
    return;
  }
  out.write(`runs: ${shellLine(argv)}\n`);
  const config = argv.indexOf("--config");
  out.write(`config: ${config >= 0 ? argv[config + 1] : "none (defaults and the service's environment)"}\n`);
}

/** Runs one command, writes `ran …` or `failed: …: why`, and says whether it worked. */
export async function runStep(
  runner: CommandRunner,
  argv: readonly string[],
  out: NodeJS.WritableStream,
): Promise<boolean> {
  const [command, ...args] = argv as [string, ...string[]];
  const result = await runner(command, args);
  out.write(
    result.code === 0 ? `ran ${shellLine(argv)}\n` : `failed: ${shellLine(argv)}: ${firstLine(result)}\n`,
  );
  return result.code === 0;
}
