import { qualifyId } from "../ids/qualified-id.ts";
import { type ConfigIssue, configError } from "./config-issues.ts";

// Ids from the config (ALLOWED_USERS, ADMINS, SERVES_USERS, --owner) qualified, with each problem
// worded as a config issue naming its key.

/** Every id of `key` qualified, and the problems (each naming `key`); the order of `ids` is kept. */
export function qualifyAll(
  ids: readonly string[],
  adapterNames: readonly string[],
  key: string,
): { ids: string[]; issues: ConfigIssue[] } {
  const qualified: string[] = [];
  const issues: ConfigIssue[] = [];
  for (const id of ids) {
    const result = qualifyId(id, adapterNames);
    if (result.ok) qualified.push(result.id);
    else issues.push({ key, message: result.reason });
  }
  return { ids: qualified, issues };
}

/** The id qualified, or a ConfigError naming `key`. */
export function qualify(id: string, adapterNames: readonly string[], key: string): string {
  const result = qualifyId(id, adapterNames);
  if (!result.ok) throw configError([{ key, message: result.reason }]);
  return result.id;
}
