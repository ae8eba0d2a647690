import { TERMINAL_PLATFORM } from "../ids/qualified-id.ts";

// Who may pair, revoke, forget and share nodes: every adapter's admins (qualified ids; ADMINS,
// or the only allowed user of a personal bot — see adapterSpecs). Whoever types on the router's
// own terminal already holds its DATA_DIR, so they count too.

export class Admins {
  readonly users: ReadonlySet<string>;

  constructor(admins: readonly string[]) {
    this.users = new Set(admins);
  }

  isAdmin(userId: string, platform: string): boolean {
    return platform === TERMINAL_PLATFORM || this.users.has(userId);
  }

  /** The one admin, if there is exactly one (the default owner of nodes paired from the CLI). */
  get sole(): string | undefined {
    return this.users.size === 1 ? [...this.users][0] : undefined;
  }
}
