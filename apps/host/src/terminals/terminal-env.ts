import { withoutPackageManager } from "@phonework/runtime";

// The environment a terminal starts with: the host's own, minus PhoneWork's secrets and settings.
// A terminal is the user's shell, but the host process holds the router secret, the model's key and
// the join code; none of them may be one `env` away. The rule, by name then by value:
//   deny  names ending _SECRET, _KEY, _TOKEN, _PASSWORD, _PASSPHRASE, or JOIN_CODE (the suffixes
//         PhoneWork's config uses for secrets: ROUTER_SECRET, OPENAI_API_KEY, TELEGRAM_BOT_TOKEN…),
//         PhoneWork's own settings (PHONEWORK_*), and what a package manager that started the
//         host added (npm_*, node_modules/.bin on PATH);
//   deny  any variable whose value is one of the host's secrets, whatever it is called;
//   allow everything else, and set TERM for the emulator on the other end.

const SECRET_NAME = /(?:_SECRET|_KEY|_TOKEN|_PASSWORD|_PASSPHRASE|JOIN_CODE)$/i;
const PHONEWORK_NAME = /^PHONEWORK_/i;

export function isDeniedName(name: string): boolean {
  return SECRET_NAME.test(name) || PHONEWORK_NAME.test(name);
}

export function terminalEnv(
  env: NodeJS.ProcessEnv,
  secretValues: ReadonlyArray<string | undefined> = [],
): Record<string, string> {
  const secrets = new Set(secretValues.filter((value): value is string => Boolean(value)));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(withoutPackageManager(env))) {
    if (value === undefined || isDeniedName(name) || secrets.has(value)) continue;
    out[name] = value;
  }
  out.TERM = "xterm-256color";
  return out;
}

/** The values of a config's secret keys (ROUTER_SECRET, OPENAI_API_KEY…): no variable may hold them. */
export function configSecrets(config: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(config).flatMap(([name, value]) =>
    isDeniedName(name) && typeof value === "string" && value ? [value] : [],
  );
}
