import { ConfigError } from "@phonework/runtime";

// Problems found in the config after the schema has parsed it, worded as the config loader words its
// own: "invalid configuration:" and one "  KEY: message" line per problem, so one run names them all.

export interface ConfigIssue {
  /** The key as the user wrote it: `ALLOWED_USERS`, `adapters.tg.webhook_secret`. */
  key: string;
  message: string;
}

export function configError(issues: readonly ConfigIssue[]): ConfigError {
  const lines = issues.map((issue) => `  ${issue.key}: ${issue.message}`);
  return new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
}
