import { execFile } from "node:child_process";
import { findExecutable } from "@phonework/host";
import { type Check, ok, warn } from "./check.ts";

// `claude` and `codex`, found the way the host finds them (CLAUDE_BIN / CODEX_BIN, else PATH),
// and asked for their version. Missing is a warning: commands and the assistant work without them.

export interface CodingCli {
  name: "claude" | "codex";
  /** CLAUDE_BIN / CODEX_BIN: a command on PATH or a path. */
  bin: string;
  key: "CLAUDE_BIN" | "CODEX_BIN";
  /** The npm package that installs it. */
  pkg: string;
}

export function codingClis(config: { CLAUDE_BIN: string; CODEX_BIN: string }): CodingCli[] {
  return [
    { name: "claude", bin: config.CLAUDE_BIN, key: "CLAUDE_BIN", pkg: "@anthropic-ai/claude-code" },
    { name: "codex", bin: config.CODEX_BIN, key: "CODEX_BIN", pkg: "@openai/codex" },
  ];
}

export async function checkCodingCli(
  cli: CodingCli,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Check> {
  const path = findExecutable(cli.bin, env.PATH);
  if (!path) {
    const where = cli.bin.includes("/") ? `${cli.bin} not found` : `\`${cli.bin}\` not found on PATH`;
    return warn(
      cli.name,
      `${where}: coding sessions with ${cli.name} are unavailable`,
      `install it (npm i -g ${cli.pkg}) or set ${cli.key}`,
    );
  }
  const answer = await version(path, env, timeoutMs);
  if (!answer.ok)
    return warn(
      cli.name,
      `${path} does not answer --version (${answer.why})`,
      `check that ${path} runs, or set ${cli.key}`,
    );
  return ok(cli.name, `${answer.version} (${path})`);
}

function version(
  path: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ ok: true; version: string } | { ok: false; why: string }> {
  return new Promise((resolve) => {
    execFile(path, ["--version"], { env, timeout: timeoutMs, maxBuffer: 64 * 1024 }, (error, stdout) => {
      const first = String(stdout).trim().split("\n")[0]?.trim() ?? "";
      if (error) {
        const why = error.killed ? `no answer in ${timeoutMs / 1000} s` : (error.code ?? error.message);
        resolve({ ok: false, why: String(why) });
      } else resolve(first ? { ok: true, version: first } : { ok: false, why: "it printed nothing" });
    });
  });
}
