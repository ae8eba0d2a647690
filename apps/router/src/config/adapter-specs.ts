import { qualifiedId, splitQualified, TERMINAL_PLATFORM } from "../ids/qualified-id.ts";
import type { AccessSpec } from "./access-spec.ts";
import {
  type AdapterCandidate,
  type AdapterSettings,
  type FlatAdapterKeys,
  flatCandidates,
  namedCandidates,
} from "./adapter-candidates.ts";
import type { AdaptersConfig } from "./adapter-entries.ts";
import { type ConfigIssue, configError } from "./config-issues.ts";
import { qualifyAll } from "./qualify-ids.ts";

// The chat adapters to start: the named ones under `adapters:` and the flat shorthand's, each with
// who may use it. ALLOWED_USERS and ADMINS are qualified (a bare id means the only adapter) and go
// to the adapter they name. Every problem is collected, then thrown as one ConfigError.

export type AdapterSpec = AdapterSettings & {
  /** Qualifies the adapter's user and chat ids (`tg:123`) and names its directories. */
  name: string;
  /** Ids qualified with this adapter's name. */
  access: AccessSpec;
};

/** The keys adapterSpecs reads; the router's and the standalone's parsed configs both have them. */
export type AdapterConfig = FlatAdapterKeys & {
  adapters?: AdaptersConfig | undefined;
  ALLOWED_USERS: readonly string[];
  ADMINS: readonly string[];
};

/** The flat shorthand's adapter names, and the key that makes each. */
const FLAT_NAMES = {
  feishu: "FEISHU_APP_ID",
  telegram: "TELEGRAM_BOT_TOKEN",
  slack: "SLACK_BOT_TOKEN",
  discord: "DISCORD_BOT_TOKEN",
} as const;

/** Flat adapters first (feishu, telegram, slack, discord), then the named ones in the file's order. The terminal is not here. */
export function adapterSpecs(config: AdapterConfig): AdapterSpec[] {
  const issues: ConfigIssue[] = [];
  const flatKeys = Object.entries(FLAT_NAMES).filter(([, key]) => config[key]);
  const named = Object.entries(config.adapters ?? {});
  for (const [name, key] of flatKeys)
    if (named.some(([other]) => other === name))
      issues.push({
        key: `adapters.${name}`,
        message: `clashes with ${key}, which makes an adapter named ${name} too: rename this one, or move the flat keys' settings into it`,
      });
  const clashing = new Set(flatKeys.map(([name]) => name));
  const candidates = [
    ...flatCandidates(config, issues),
    ...namedCandidates(Object.fromEntries(named.filter(([name]) => !clashing.has(name))), issues),
  ];
  issues.push(...sameBotTwice(candidates));
  // Every adapter the config declares, also one refused above: an id naming it is not a second problem.
  const names = [...new Set([...flatKeys.map(([name]) => name), ...named.map(([name]) => name)])];
  const specs = names.length > 0 ? withAccess(candidates, names, config, issues) : [];
  if (issues.length > 0) throw configError(issues);
  return specs;
}

/** Two adapters for one bot (or Feishu app) would fight over its updates. */
function sameBotTwice(candidates: readonly AdapterCandidate[]): ConfigIssue[] {
  const first = new Map<string, AdapterCandidate>();
  const issues: ConfigIssue[] = [];
  for (const candidate of candidates) {
    const earlier = first.get(candidate.identity);
    if (earlier)
      issues.push({
        key: candidate.identityKey,
        message: `is the same ${candidate.type} ${candidate.type === "feishu" || candidate.type === "slack" ? "app" : "bot"} as ${earlier.identityKey}: one adapter per bot`,
      });
    else first.set(candidate.identity, candidate);
  }
  return issues;
}

function withAccess(
  candidates: readonly AdapterCandidate[],
  names: readonly string[],
  config: AdapterConfig,
  issues: ConfigIssue[],
): AdapterSpec[] {
  const everyone = config.ALLOWED_USERS.includes("*");
  const allowed = qualifyAll(
    config.ALLOWED_USERS.filter((id) => id !== "*"),
    names,
    "ALLOWED_USERS",
  );
  const admins = qualifyAll(config.ADMINS, names, "ADMINS");
  issues.push(...allowed.issues, ...admins.issues);
  // No ADMINS and exactly one allowed user: that user is the admin (a personal bot's owner).
  const soleUser = config.ALLOWED_USERS.length === 1 && config.ALLOWED_USERS[0] !== "*";
  const globalAdmins = config.ADMINS.length > 0 ? admins.ids : soleUser ? allowed.ids : [];
  // Qualified ids of the terminal are left out: its one user is always allowed and an admin.
  const of = (ids: readonly string[], name: string) =>
    ids.filter((id) => splitQualified(id, names)?.adapter === name);

  return candidates.map((candidate): AdapterSpec => {
    const { name } = candidate;
    const key = `adapters.${name}`;
    const ownDm = Array.isArray(candidate.dm) ? ownIds(candidate.dm, name, names, `${key}.dm`, issues) : [];
    const ownAdmins = ownIds(candidate.admins, name, names, `${key}.admins`, issues);
    const dmIds = unique([...ownDm, ...of(allowed.ids, name)]);
    const access: AccessSpec = {
      admins: unique([...ownAdmins, ...of(globalAdmins, name)]),
      dm: everyone || candidate.dm === "everyone" ? "everyone" : dmIds.length > 0 ? dmIds : "none",
    };
    if (candidate.type === "slack") return { name, type: "slack", settings: candidate.settings, access };
    if (candidate.type === "discord") return { name, type: "discord", settings: candidate.settings, access };
    return candidate.type === "feishu"
      ? { name, type: "feishu", settings: candidate.settings, access }
      : { name, type: "telegram", settings: candidate.settings, access };
  });
}

/**
 * An adapter's own `admins` / `dm`: bare ids are this adapter's (its platform's ids may hold colons),
 * ids qualified with its own name are kept, and ids of another adapter are refused.
 */
function ownIds(
  ids: readonly string[],
  adapter: string,
  names: readonly string[],
  key: string,
  issues: ConfigIssue[],
): string[] {
  const qualified: string[] = [];
  for (const id of ids) {
    const parts = splitQualified(id, [...names, TERMINAL_PLATFORM]);
    if (!parts) qualified.push(qualifiedId(adapter, id));
    else if (parts.adapter !== adapter)
      issues.push({ key, message: `"${id}" is an id of adapter ${parts.adapter}, not of ${adapter}` });
    else if (!parts.id) issues.push({ key, message: `"${id}" has no id after "${adapter}:"` });
    else qualified.push(id);
  }
  return qualified;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}
