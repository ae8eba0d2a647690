import type { AccessSpec } from "../config/access-spec.ts";
import { type AdapterConfig, adapterSpecs } from "../config/adapter-specs.ts";
import { qualifyAll } from "../config/qualify-ids.ts";
import {
  CONSOLE_PLATFORM,
  isQualified,
  type QualifyResult,
  qualifyId,
  TERMINAL_PLATFORM,
  TERMINAL_USER,
} from "../ids/qualified-id.ts";
import type { PlatformAdapter } from "../platforms/platform-adapter.ts";
import { AdapterAccess, routerAdmins, terminalAccessSpec } from "./adapter-access.ts";

// Who may use each adapter the router serves, who its admins are, and how a host's SERVES_USERS
// ids are read. Configured adapters get their spec's rules; the terminal its one local user; an
// adapter handed in by an embedder (or a test) gets ALLOWED_USERS and ADMINS, qualified with its
// own name as the only adapter there is.

export type QualifiedUsers = { ok: true; ids: string[] } | { ok: false; reason: string };

export class ChatAccess {
  private readonly byAdapter = new Map<string, AdapterAccess>();
  readonly admins: string[];
  /** The chat adapters' names, without the terminal's. */
  readonly chatAdapters: string[];
  private readonly hasTerminal: boolean;

  constructor(config: AdapterConfig, adapters: readonly PlatformAdapter[]) {
    const specs = new Map(adapterSpecs(config).map((spec) => [spec.name, spec.access]));
    const accessSpecs = adapters.map((adapter): [string, AccessSpec] => [
      adapter.name,
      adapter.name === TERMINAL_PLATFORM
        ? terminalAccessSpec()
        : (specs.get(adapter.name) ?? globalSpec(config, adapter.name)),
    ]);
    for (const [name, spec] of accessSpecs) this.byAdapter.set(name, new AdapterAccess(spec));
    this.admins = routerAdmins(accessSpecs.map(([, access]) => ({ access })));
    this.chatAdapters = adapters.map((adapter) => adapter.name).filter((name) => name !== TERMINAL_PLATFORM);
    this.hasTerminal = adapters.some((adapter) => adapter.name === TERMINAL_PLATFORM);
  }

  /**
   * Who owns a node, as its host is told in `register_ok` (only they change its host-wide state).
   * A paired node: its owner; one the shared secret admitted (this machine's own): the router's
   * admins, and whoever types on its terminal when the terminal chat is on.
   */
  ownersOf(paired: { owner: string } | undefined): string[] {
    if (paired) return [paired.owner];
    return [...new Set(this.admins), ...(this.hasTerminal ? [TERMINAL_USER] : [])];
  }

  /** Unknown adapters let nobody in. */
  forAdapter(name: string): AdapterAccess {
    return this.byAdapter.get(name) ?? new AdapterAccess({ admins: [], dm: "none" });
  }

  /**
   * A user id an admin typed (/share, /unshare), read as SERVES_USERS is: a bare id means the only
   * chat adapter, and is refused (saying how to write it) when there are several.
   */
  qualifyUser(id: string): QualifyResult {
    return this.chatAdapters.length === 0 ? { ok: true, id } : qualifyId(id, this.chatAdapters);
  }

  /** One id as SERVES_USERS is read (a push's user, queued before adapters were named), else as it is. */
  qualifyServedUser(id: string): string {
    const user = this.qualifyServedUsers([id]);
    return user.ok ? (user.ids[0] ?? id) : id;
  }

  /**
   * A host's SERVES_USERS, qualified: a bare id means the only chat adapter, and is refused (with
   * the reason naming the key) when there are several. With no chat adapter the ids stay as sent.
   */
  qualifyServedUsers(ids: readonly string[]): QualifiedUsers {
    // The console is a window onto other chats' users, not a chat with users of its own.
    const chats = this.chatAdapters.filter((name) => name !== CONSOLE_PLATFORM);
    if (chats.length === 0 && this.hasTerminal && ids.length > 0) return terminalUsers(ids);
    // slice, not spread: a spread array is allocated room for 16, and the registry keeps this one per node.
    if (this.chatAdapters.length === 0 || ids.length === 0) return { ok: true, ids: ids.slice() };
    const { ids: qualified, issues } = qualifyAll(ids, this.chatAdapters, "SERVES_USERS");
    if (issues.length === 0) return { ok: true, ids: qualified };
    return { ok: false, reason: issues.map((issue) => `${issue.key}: ${issue.message}`).join("; ") };
  }
}

/**
 * SERVES_USERS where this machine's terminal is the only chat: a bare id means its user, and an id
 * that is nobody here is refused, saying who is.
 */
function terminalUsers(ids: readonly string[]): QualifiedUsers {
  const qualified = ids.map((id) =>
    isQualified(id, [TERMINAL_PLATFORM]) ? id : `${TERMINAL_PLATFORM}:${id}`,
  );
  const nobody = ids.filter((_, i) => qualified[i] !== TERMINAL_USER);
  if (nobody.length === 0) return { ok: true, ids: qualified };
  return {
    ok: false,
    reason:
      `SERVES_USERS: ${nobody.map((id) => `"${id}"`).join(", ")} is nobody here: the only chat is this ` +
      `machine's terminal, whose user is ${TERMINAL_USER} (SERVES_USERS=local)`,
  };
}

/** ALLOWED_USERS and ADMINS for an adapter the config does not name (ids without a prefix are its). */
function globalSpec(config: AdapterConfig, name: string): AccessSpec {
  const mine = (ids: readonly string[]) =>
    ids.flatMap((id) => {
      const result = qualifyId(id, [name]);
      return result.ok && result.id.startsWith(`${name}:`) ? [result.id] : [];
    });
  const allowed = config.ALLOWED_USERS.filter((id) => id !== "*");
  // A personal bot's owner: the only allowed user is its admin when ADMINS is not set.
  const admins = config.ADMINS.length > 0 ? config.ADMINS : allowed.length === 1 ? allowed : [];
  return {
    admins: mine(admins),
    dm: config.ALLOWED_USERS.includes("*") ? "everyone" : mine(allowed),
  };
}
