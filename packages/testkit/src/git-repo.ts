import { execFileSync } from "node:child_process";

// A real git repository for tests: init, add everything, one commit. No global git config needed.

const identity = {
  GIT_AUTHOR_NAME: "PhoneWork Test",
  GIT_AUTHOR_EMAIL: "test@phonework.invalid",
  GIT_COMMITTER_NAME: "PhoneWork Test",
  GIT_COMMITTER_EMAIL: "test@phonework.invalid",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...identity }, encoding: "utf8" });
}

export function initGitRepo(dir: string): void {
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "initial commit");
}
