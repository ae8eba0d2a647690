import type { MemoryScope } from "./memory-files.ts";

// Which memories a user's turns see, and where "remember this in every chat" goes. The host's own
// memory is its owner's: everyone's turns see it, only the owner's change it. Anyone else keeps
// what they want remembered everywhere in a memory of their own, which only their turns see.

export interface Owners {
  isOwner(userId: string): boolean;
}

/** The scope the memory tool's `global` means for this user. */
export const everywhereScope = (owners: Owners, userId: string): MemoryScope =>
  owners.isOwner(userId) ? "global" : "user";

/** The memories shown to this user's turns and in /memory, in order. */
export const shownScopes = (owners: Owners, userId: string): MemoryScope[] =>
  owners.isOwner(userId) ? ["global", "channel"] : ["global", "user", "channel"];
