import { isSecretKeyName } from "@phonework/runtime";

// Which environment variables a sandboxed command loses: hiding DATA_DIR's keys would mean little
// if the same secrets were one `env` away. Gone: every secret-named key of the config (set or not),
// every variable named like a secret (…_SECRET, …_KEY, …_TOKEN, …_PASSWORD, JOIN_CODE) or
// PhoneWork's own (PHONEWORK_…), and any variable holding the value of one of the config's secrets.

export function secretEnvNames(config: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv): string[] {
  const secretKeys = Object.keys(config).filter(isSecretKeyName);
  const values = new Set(
    secretKeys.map((key) => config[key]).filter((v): v is string => typeof v === "string" && v !== ""),
  );
  const named = Object.entries(env).flatMap(([name, value]) =>
    isSecretKeyName(name) || /^PHONEWORK_/i.test(name) || (value !== undefined && values.has(value))
      ? [name]
      : [],
  );
  return [...new Set([...secretKeys, ...named])];
}
