import type { AccessSpec } from "../config/access-spec.ts";
import { qualifiedId, TERMINAL_PLATFORM } from "../ids/qualified-id.ts";

// Who may use one chat adapter, and who administers the router. Deny by default: an adapter's
// admins always, then its `dm` list (or everyone). Ids are qualified (`telegram:123`).

export type ChannelType = "private" | "group";

/** Whether a user may use the bot, from a chat of this type: what the intake asks of each message. */
export interface AccessPolicy {
  mayUse(userId: string, channelType: ChannelType): boolean;
}

export class AdapterAccess {
  /** Anyone who can message the bot may use it. */
  readonly open: boolean;
  private readonly admins: ReadonlySet<string>;
  private readonly users: ReadonlySet<string>;

  constructor(access: AccessSpec) {
    this.open = access.dm === "everyone";
    this.admins = new Set(access.admins);
    this.users = new Set(Array.isArray(access.dm) ? access.dm : []);
  }

  /**
   * Groups admit the same people as private chats, not everyone in them: PhoneWork runs commands
   * on people's computers, so a stranger in a group is not let in. (The shared chat layer also
   * answers a group only when the bot is mentioned.) The channel type is asked for all the same,
   * so a group policy of its own has one place to go.
   */
  mayUse(userId: string, _channelType: ChannelType): boolean {
    return this.admins.has(userId) || this.open || this.users.has(userId);
  }

  isAdmin(userId: string): boolean {
    return this.admins.has(userId);
  }
}

/** The router's admins across adapters, qualified, each once: what `Admins` holds. */
export function routerAdmins(specs: ReadonlyArray<{ access: AccessSpec }>): string[] {
  return [...new Set(specs.flatMap((spec) => spec.access.admins))];
}

/**
 * The terminal chat: its one local user is always allowed and is an admin — whoever types on the
 * router's own terminal already holds its DATA_DIR.
 */
export function terminalAccessSpec(userId = "local"): AccessSpec {
  return { admins: [qualifiedId(TERMINAL_PLATFORM, userId)], dm: "everyone" };
}
