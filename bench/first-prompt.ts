import { execFileSync } from "node:child_process";
import type { Cleanup } from "./cleanup.ts";
import { startProgram } from "./program-process.ts";

// Time from spawning `phonework standalone` to its first prompt. The prompt (the "node … is
// online. Type /help" line) is printed only when stdin is a terminal, once the host is registered
// and the terminal chat reads: the moment a person can type. util-linux `script` gives the
// program a pseudo-terminal; the bench holds `script`'s stdin, and ending it is Ctrl-D.

const PROMPT = /PhoneWork standalone: node .* is online/;
const PROMPT_TIMEOUT_MS = 30_000;
const EXIT_TIMEOUT_MS = 10_000;

/** Why the prompt cannot be timed here, or undefined when util-linux `script` is on PATH. */
export function missingTerminal(): string | undefined {
  try {
    const version = execFileSync("script", ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return version.includes("util-linux") ? undefined : `\`script\` is not util-linux's (${version.trim()})`;
  } catch {
    return "util-linux `script` is not on PATH (it gives the program a terminal)";
  }
}

/**
 * Milliseconds from spawn to the prompt. The program is then sent Ctrl-D and awaited, so the next
 * run finds DATA_DIR unlocked.
 */
export async function timeFirstPrompt(
  bin: string,
  dataDir: string,
  options: { env: Record<string, string>; cwd: string },
  cleanup: Cleanup,
): Promise<number> {
  const command = `${shellQuote(bin)} standalone --data-dir ${shellQuote(dataDir)}`;
  const started = performance.now();
  // -q: no "Script started" lines; -f: output as it comes; -e: the program's exit code.
  const program = startProgram(
    "script",
    ["-qfec", command, "/dev/null"],
    { ...options, stdinPipe: true },
    cleanup,
  );
  await program.waitForOutput("stdout", PROMPT, PROMPT_TIMEOUT_MS);
  const elapsed = performance.now() - started;
  program.endInput();
  const timer = setTimeout(() => void program.stop(), EXIT_TIMEOUT_MS);
  const code = await program.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`phonework standalone exited with ${code} after Ctrl-D`);
  return elapsed;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
