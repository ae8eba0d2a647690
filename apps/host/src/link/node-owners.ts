// Who owns this node, as the router said when it last accepted the registration (register_ok's
// `owners`: the user who paired it). A node may serve other users it was shared with; only its
// owners change what the host keeps for everyone (its memory, skills, custom tools and events).
// Before the first registration, or from a router too old to say, nobody does.

export class NodeOwners {
  private owners: ReadonlySet<string> = new Set();

  /** What the router said at a registration (absent: nobody). */
  update(owners: readonly string[] | undefined): void {
    this.owners = new Set(owners ?? []);
  }

  isOwner(userId: string): boolean {
    return this.owners.has(userId);
  }

  /** For messages: who the owners are. */
  list(): string[] {
    return [...this.owners];
  }
}
