import type { AppName } from "../programs/app-name.ts";

// What a service runs and as whom: everything the unit file and the plist are rendered from.

export type ServiceScope = "user" | "system";

export interface ServiceSpec {
  app: AppName;
  /** The whole command line, argv[0] an absolute path (see launch-command.ts). */
  argv: readonly string[];
  /** PATH for the service, so the user's own `claude` and `codex` are found. */
  path: string;
  /** Where it starts: the user's home directory. */
  workingDirectory: string;
  scope: ServiceScope;
  /** Whom a system unit runs as; a user unit runs as its user anyway. */
  runAs?: { user: string; group: string };
}

export const SERVICE_DESCRIPTIONS: Record<AppName, string> = {
  router: "PhoneWork router",
  host: "PhoneWork host",
  standalone: "PhoneWork standalone (router and host)",
};

/** Seconds a service manager waits before starting it again. */
export const RESTART_DELAY_S = 5;

/**
 * The exit code of a configuration problem (exitOnError's ConfigError, a refused join code): starting
 * again cannot help, so a service manager must not loop on it.
 */
export const CONFIG_ERROR_EXIT = 2;

export const systemdUnitName = (app: AppName) => `phonework-${app}.service`;
export const launchdLabel = (app: AppName) => `com.phonework.${app}`;

/**
 * The user's PATH, each directory once, with this node's directory added when missing (`claude`
 * starts with `#!/usr/bin/env node`).
 */
export function servicePath(userPath: string | undefined, nodeDir: string): string {
  const entries = (userPath || "/usr/local/bin:/usr/bin:/bin").split(":").filter(Boolean);
  return [...new Set([...entries, nodeDir])].join(":");
}
