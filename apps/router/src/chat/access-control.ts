// Who may use the bot: deny by default. An explicit list of platform user ids, or "*" to open
// the bot deliberately.

export class AccessControl {
  readonly open: boolean;
  private readonly allowed: Set<string>;

  constructor(allowedUsers: readonly string[]) {
    this.open = allowedUsers.includes("*");
    this.allowed = new Set(allowedUsers.filter((user) => user !== "*"));
  }

  allows(userId: string): boolean {
    return this.open || this.allowed.has(userId);
  }

  get size(): number {
    return this.allowed.size;
  }
}
