// What one doctor check found: a line of its own, ✅ ⚠️ or ❌, and for anything but ✅ what to do.

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  status: CheckStatus;
  /** What was checked: "DATA_DIR", "router", "claude"… */
  title: string;
  /** What was found, with the value checked (never a secret). */
  detail: string;
  /** How to fix it, when there is something to do. */
  fix?: string;
}

export const ok = (title: string, detail: string): Check => ({ status: "ok", title, detail });

export const warn = (title: string, detail: string, fix?: string): Check => ({
  status: "warn",
  title,
  detail,
  ...(fix ? { fix } : {}),
});

export const fail = (title: string, detail: string, fix?: string): Check => ({
  status: "fail",
  title,
  detail,
  ...(fix ? { fix } : {}),
});

/** A check that was not run; a warning, since nothing says it would pass. */
export const skipped = (title: string, why: string): Check => warn(title, `skipped (${why})`);

/**
 * A multi-line error (ConfigError: "invalid configuration:\n  KEY: problem\n  …") as one line:
 * "invalid configuration: KEY: problem; …".
 */
export function oneLine(message: string): string {
  const [first = "", ...rest] = message
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  if (rest.length === 0) return first;
  return first.endsWith(":") ? `${first} ${rest.join("; ")}` : [first, ...rest].join("; ");
}
