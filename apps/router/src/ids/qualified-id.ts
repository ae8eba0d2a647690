// User and chat ids as stored and configured: qualified by the adapter's name, `telegram:123`,
// `feishu:ou_abc`, `telegram:-1001234` (a group). Only the part before the first ":" is the adapter —
// the platform's id may hold colons of its own — and only when it is an adapter's name.

/** Adapter names prefix ids and name directories. */
export const ADAPTER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * The chat on the router's own stdin (platforms/stdin): its adapter name, reserved, never a
 * configured adapter, never "the only adapter". The wire and config keep calling it "terminal".
 */
export const TERMINAL_PLATFORM = "terminal";
/** The web console's adapter: a window onto the users of the other chats, none of its own. */
export const CONSOLE_PLATFORM = "console";
/** Whoever types on the machine's own terminal, as ids are qualified: the machine's owner. */
export const TERMINAL_USER = `${TERMINAL_PLATFORM}:local`;

export interface QualifiedParts {
  adapter: string;
  id: string;
}

/**
 * The adapter and the platform's id of a qualified id, or undefined when it is not qualified.
 * With `adapterNames`, only those count as adapters; without, any prefix shaped like a name does
 * (right for ids read back from storage, which are always qualified).
 */
export function splitQualified(value: string, adapterNames?: Iterable<string>): QualifiedParts | undefined {
  const colon = value.indexOf(":");
  if (colon < 0) return undefined;
  const adapter = value.slice(0, colon);
  const known = adapterNames ? includes(adapterNames, adapter) : ADAPTER_NAME.test(adapter);
  return known ? { adapter, id: value.slice(colon + 1) } : undefined;
}

/** A look through the few names there are (no Set made per call: each send splits its ids). */
function includes(names: Iterable<string>, name: string): boolean {
  for (const known of names) if (known === name) return true;
  return false;
}

export function isQualified(value: string, adapterNames?: Iterable<string>): boolean {
  return splitQualified(value, adapterNames) !== undefined;
}

export function qualifiedId(adapter: string, id: string): string {
  return `${adapter}:${id}`;
}

export type QualifyResult = { ok: true; id: string } | { ok: false; reason: string };

/**
 * An id from the config (ALLOWED_USERS, ADMINS, a host's SERVES_USERS) made qualified:
 * kept when it names one of `adapterNames` (or the terminal), given the adapter's name when there
 * is only one, refused when it is ambiguous or names an adapter that does not exist.
 * `adapterNames` are the chat adapters, without the terminal.
 */
export function qualifyId(id: string, adapterNames: readonly string[]): QualifyResult {
  const parts = splitQualified(id, [...adapterNames, TERMINAL_PLATFORM]);
  if (parts)
    return parts.id ? { ok: true, id } : { ok: false, reason: `"${id}" has no id after "${parts.adapter}:"` };
  const prefix = id.slice(0, Math.max(0, id.indexOf(":")));
  if (ADAPTER_NAME.test(prefix)) {
    const known =
      adapterNames.length > 0 ? `the adapters are ${adapterNames.join(", ")}` : "none is configured";
    const example = adapterNames.length > 0 ? `${adapterNames[0]}:${id}` : `<adapter>:${id}`;
    return {
      ok: false,
      reason:
        `"${id}" names no chat adapter "${prefix}" (${known}); ` +
        `an id that itself holds ":" is written after its adapter's name, e.g. ${example}`,
    };
  }
  const [only, ...others] = adapterNames;
  if (only === undefined)
    return { ok: false, reason: `"${id}" cannot be given to a chat adapter: none is configured` };
  if (others.length === 0) return { ok: true, id: qualifiedId(only, id) };
  const choices = adapterNames.map((name) => qualifiedId(name, id));
  return {
    ok: false,
    reason:
      `"${id}" is ambiguous with several chat adapters (${adapterNames.join(", ")}); ` +
      `write ${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}`,
  };
}
