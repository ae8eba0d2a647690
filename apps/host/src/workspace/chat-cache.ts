// What the host remembers per chat between messages (a chat's directory and log path, its scratch
// directory made, who was granted it), keyed by (adapter, chat) two Maps deep: a lookup on every
// message builds no key string. One `${adapter}\0${chat}` key cost several times the rest of the
// lookup (a fresh string to flatten and hash at each message: 0.6 µs against 0.1 µs, measured).
// Bounded, as chat ids come from outside: at `max` entries it starts again from empty, which keeps
// no order to update on a hit, and the chats a host serves at once (well under `max`) are back
// after one message each; dropped entries cost only the work the cache saves (a path worked out,
// a directory made, a grant written again).

export class ChatCache<V> {
  private readonly byAdapter = new Map<string, Map<string, V>>();
  private entries = 0;

  constructor(private readonly max: number) {}

  get(adapter: string, chat: string): V | undefined {
    return this.byAdapter.get(adapter)?.get(chat);
  }

  set(adapter: string, chat: string, value: V): void {
    let chats = this.byAdapter.get(adapter);
    if (chats?.has(chat)) {
      chats.set(chat, value);
      return;
    }
    if (this.entries >= this.max) {
      this.clear();
      chats = undefined;
    }
    if (chats === undefined) {
      chats = new Map();
      this.byAdapter.set(adapter, chats);
    }
    chats.set(chat, value);
    this.entries++;
  }

  /** How many chats are remembered. */
  get size(): number {
    return this.entries;
  }

  clear(): void {
    this.byAdapter.clear();
    this.entries = 0;
  }
}
