import { TERMINAL_PLATFORM } from "../chat/terminal-adapter.ts";

// Who may pair, revoke, forget and share nodes. ADMINS when set; otherwise the only user in
// ALLOWED_USERS when it lists exactly one (a personal bot's owner); otherwise nobody until set.
// Whoever types on the router's own terminal already holds its DATA_DIR, so they count too.

export class Admins {
  readonly users: ReadonlySet<string>;

  constructor(admins: readonly string[], allowedUsers: readonly string[]) {
    const only = allowedUsers.length === 1 && allowedUsers[0] !== "*" ? allowedUsers : [];
    this.users = new Set(admins.length > 0 ? admins : only);
  }

  isAdmin(userId: string, platform: string): boolean {
    return platform === TERMINAL_PLATFORM || this.users.has(userId);
  }

  /** The one admin, if there is exactly one (the default owner of nodes paired from the CLI). */
  get sole(): string | undefined {
    return this.users.size === 1 ? [...this.users][0] : undefined;
  }
}
