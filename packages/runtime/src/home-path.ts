// YAML values and env files (docker compose's .env, systemd's EnvironmentFile) never pass through
// a shell, so `~` and `$HOME` arrive as written: `DATA_DIR: ~/pwdata` used to make a directory
// literally named `~`. These put the home directory in, the way a shell would at the start of a word.

// `~user/…` is not matched: the shell would look that user up in the password database, which we do
// not do; such a value stays a relative name like any other.
const HOME_PREFIX = /^(?:~|\$HOME|\$\{HOME\})(?=[/\\]|$)/;
const HOME_DIR_PREFIX = /^(?:~|\$HOME|\$\{HOME\})(?=[/\\])/;

/** `~`, `~/x`, `$HOME/x` and `${HOME}/x` with `home` in place of the prefix; anything else as given. */
export function expandHome(path: string, home: string): string {
  // A function replacement, so a `$` in the home directory's name is not read as a pattern.
  return path.replace(HOME_PREFIX, () => home);
}

/**
 * For a command: only `~/…` and `$HOME/…` are expanded. A bare `claude` is a PATH lookup and stays
 * one, and a bare `~` is no program.
 */
export function expandHomeInCommand(command: string, home: string): string {
  return command.replace(HOME_DIR_PREFIX, () => home);
}
