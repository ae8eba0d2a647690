// Who may use one chat adapter, as the config says it: its admins, and its `dm` rule. Ids are
// qualified (`telegram:123`). The rules themselves are access/adapter-access.ts.

export interface AccessSpec {
  /** May always use the bot, and are router admins (pairing, revoking, sharing nodes). */
  admins: string[];
  /** Who else may: everyone, none (only the admins), or these ids. */
  dm: "everyone" | "none" | string[];
}

/** What a start-up log line should say about an adapter's access, if anything. */
export function accessWarning(spec: { name: string; access: AccessSpec }): string | undefined {
  const { name, access } = spec;
  if (access.dm === "everyone")
    return `adapter ${name}: dm everyone — the bot answers anyone who can message it`;
  if (access.admins.length === 0 && access.dm === "none")
    return `adapter ${name}: no admins and dm none — every user will be refused (deny by default)`;
  return undefined;
}
