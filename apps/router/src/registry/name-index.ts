// The names a node answers to (its id and its display name), filed so that the display-name rule
// (display-name-rule.ts) looks at the few nodes whose names could clash with a newcomer's instead of
// every node the router knows: with 10,000 hosts coming back after a restart, a pass over the whole
// list at each registration is 50 million comparisons. The index only narrows; the rule itself still
// decides on each candidate. Names are compared lowercased, display names trimmed.

/** What `@name` may be followed by (explicit-target.ts reads the same). */
export const NAME_SEPARATOR = /^[\s:,，：]/;

/** `name` is `other`, or `other` followed by a separator and more. */
export const begins = (name: string, other: string) =>
  name === other || (name.startsWith(other) && NAME_SEPARATOR.test(name.slice(other.length)));

/** `text` and every start of it that a separator follows: exactly the names `text` begins. */
export function namesBegunBy(text: string): string[] {
  const names = [text];
  for (let i = 1; i < text.length; i++) if (NAME_SEPARATOR.test(text.charAt(i))) names.push(text.slice(0, i));
  return names;
}

export const nameKey = (displayName: string) => displayName.trim().toLowerCase();

export class NameIndex {
  /** "id:<id>", "name:<name>" and "begun:<a start of a name>" → the node ids filed under it. */
  private readonly nodesBy = new Map<string, Set<string>>();
  /** Node id → the keys it is filed under, to take it out again. */
  private readonly keysOf = new Map<string, string[]>();

  /** Files (or files again) a node under its id and display name. */
  set(nodeId: string, displayName: string): void {
    this.remove(nodeId);
    const name = nameKey(displayName);
    const keys = new Set([`id:${nodeId.toLowerCase()}`, `name:${name}`]);
    for (const start of namesBegunBy(name)) keys.add(`begun:${start}`);
    for (const key of keys) {
      const ids = this.nodesBy.get(key) ?? new Set<string>();
      ids.add(nodeId);
      this.nodesBy.set(key, ids);
    }
    this.keysOf.set(nodeId, [...keys]);
  }

  /** How many nodes are filed (the registry keeps it equal to its own count). */
  get size(): number {
    return this.keysOf.size;
  }

  remove(nodeId: string): void {
    for (const key of this.keysOf.get(nodeId) ?? []) {
      const ids = this.nodesBy.get(key);
      ids?.delete(nodeId);
      if (ids?.size === 0) this.nodesBy.delete(key);
    }
    this.keysOf.delete(nodeId);
  }

  /**
   * Every node whose id or display name `wanted` (lowercased, trimmed) begins, and every node whose
   * display name begins with `wanted`: the only ones the display-name rule can refuse it over.
   */
  candidates(wanted: string): Set<string> {
    const found = new Set<string>();
    const add = (key: string) => {
      for (const id of this.nodesBy.get(key) ?? []) found.add(id);
    };
    for (const start of namesBegunBy(wanted)) {
      add(`id:${start}`);
      add(`name:${start}`);
    }
    add(`begun:${wanted}`);
    return found;
  }
}
