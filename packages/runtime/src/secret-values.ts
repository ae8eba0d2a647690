// Redaction by value: the secrets this process knows (config, join codes, tokens minted at run
// time) and a few patterns for secrets it cannot know in advance are cut out of any text, so a
// secret that an SDK flattened into an error string never reaches a log line.

export const REDACTED = "[redacted]";

/**
 * Shorter values are not redacted by value: replacing every "abc" in every line would mangle
 * ordinary text and, by the gaps it leaves, reveal the value anyway. Such a value is not a real
 * secret; key-path redaction in the logger still hides it where it sits under a known key.
 */
export const MIN_SECRET_LENGTH = 6;

/**
 * Secrets whose value we cannot know beforehand. Few on purpose: each one is a false positive
 * waiting to happen on ordinary text, so each matches a shape that ordinary text does not have.
 */
const SECRET_PATTERNS: ReadonlyArray<{ pattern: RegExp; replace: string }> = [
  // An Authorization header (or any dump of one): a bearer token in any form.
  { pattern: /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, replace: `$1${REDACTED}` },
  // Feishu/Lark token and secret fields, as JSON (also JSON inside a JSON string, hence the
  // optional backslashes before quotes) or as query/form parameters.
  {
    pattern: /\b((?:tenant|app|user)_access_token|app_secret)(\\*"?\s*[:=]\s*\\*"?)[^"\\\s,&}]+/gi,
    replace: `$1$2${REDACTED}`,
  },
  // Feishu/Lark tokens by their shape: t- (tenant), a- (app), u- (user) and a long alphanumeric
  // tail. No underscore or hyphen in the tail, so snake_case and kebab-case words do not match.
  { pattern: /\b[tau]-[A-Za-z0-9]{20,}\b/g, replace: REDACTED },
  // A Telegram bot token, which sits in every Bot API URL (`/bot123456:AA…/sendMessage`).
  { pattern: /(?<=\bbot|\b)\d{5,}:[A-Za-z0-9_-]{30,}/g, replace: REDACTED },
];

export class SecretValues {
  private readonly values = new Set<string>();
  /** Longest first, so a secret that contains another is cut out whole; rebuilt after `add`. */
  private ordered: string[] = [];

  constructor(values: Iterable<string | undefined> = []) {
    for (const value of values) this.add(value);
  }

  /** Remembers a secret (a config value, a join code or token minted at run time). */
  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
    this.values.add(value);
    // Log lines are JSON: a value with quotes, backslashes or control characters appears escaped.
    this.values.add(JSON.stringify(value).slice(1, -1));
    this.ordered = [...this.values].sort((a, b) => b.length - a.length);
  }

  /** The text with every known secret and every secret-shaped token replaced by "[redacted]". */
  redact(text: string): string {
    let out = text;
    for (const value of this.ordered) {
      if (out.includes(value)) out = out.split(value).join(REDACTED);
    }
    for (const { pattern, replace } of SECRET_PATTERNS) out = out.replace(pattern, replace);
    return out;
  }
}

// Config keys that hold secrets: the suffixes our config uses for them (in either case: nested
// adapter settings are snake_case, `bot_token`, `app_secret`), and the join code.
const SECRET_KEY_NAME = /(?:_SECRET|_KEY|_TOKEN|_PASSWORD|JOIN_CODE)$/i;

/** Whether a config key holds a secret (ROUTER_SECRET, OPENAI_API_KEY, bot_token, JOIN_CODE…). */
export const isSecretKeyName = (key: string): boolean => SECRET_KEY_NAME.test(key);

/**
 * Adds every string value of `config` whose key names a secret (ROUTER_SECRET, OPENAI_API_KEY…),
 * also inside nested objects (`adapters: { tg: { bot_token } }`).
 */
export function addConfigSecrets(secrets: SecretValues, config: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(config)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      addConfigSecrets(secrets, value as Record<string, unknown>);
      continue;
    }
    if (!isSecretKeyName(key)) continue;
    if (typeof value === "string") secrets.add(value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === "string") secrets.add(item);
  }
}
