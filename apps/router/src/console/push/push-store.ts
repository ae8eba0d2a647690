import { openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import type { PushSubscriptionInput } from "./push-subscription.ts";
import { webPushLibrary } from "./web-push-library.ts";

// router.db's side of Web Push: the VAPID key pair, made once on first use and kept (pages'
// subscriptions are bound to its public key, so a new one would orphan them all), and each sign-in's
// subscriptions, which go when the sign-in does. A subscription may name the nodes it is for
// (NULL: all of them).

export const WEB_PUSH_MIGRATION = `
  CREATE TABLE web_push_vapid (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    public_key TEXT NOT NULL,
    private_key TEXT NOT NULL
  );
  CREATE TABLE web_push_subscriptions (
    endpoint TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX web_push_subscriptions_session ON web_push_subscriptions (session_id);
  CREATE INDEX web_push_subscriptions_user ON web_push_subscriptions (user_id);`;

/** The nodes a subscription is for, as a JSON array; NULL (every row before this) means all. */
export const WEB_PUSH_NODES_MIGRATION = "ALTER TABLE web_push_subscriptions ADD COLUMN nodes TEXT";

/** A sign-in's subscriptions are bounded: a page re-subscribing in a loop cannot fill the table. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 4;

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface StoredSubscription {
  endpoint: string;
  sessionId: string;
  keys: { p256dh: string; auth: string };
  /** The nodes it is for; undefined: all. */
  nodes?: string[];
}

/** Whether `subscription` wants news about `nodeId`. */
export const covers = (subscription: Pick<StoredSubscription, "nodes">, nodeId: string): boolean =>
  subscription.nodes === undefined || subscription.nodes.includes(nodeId);

const nodesOf = (column: string | null): string[] | undefined => {
  if (column === null) return undefined;
  const parsed: unknown = JSON.parse(column);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === "string") : undefined;
};

export class PushStore {
  private readonly sql: PreparedStatements;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => number = Date.now,
  ) {
    this.sql = new PreparedStatements(db);
  }

  static inMemory(): PushStore {
    return new PushStore(
      openDatabase(":memory:", { migrations: [WEB_PUSH_MIGRATION, WEB_PUSH_NODES_MIGRATION] }),
    );
  }

  /**
   * The router's VAPID keys (base64url P-256), made the first time they are asked for (two first
   * asks at once both make a pair; the first stored is kept and both get it).
   */
  async vapidKeys(): Promise<VapidKeys> {
    const kept = this.storedKeys();
    if (kept) return kept;
    const made = (await webPushLibrary()).generateVAPIDKeys();
    this.sql
      .sql("INSERT OR IGNORE INTO web_push_vapid (id, public_key, private_key) VALUES (1, ?, ?)")
      .run(made.publicKey, made.privateKey);
    return this.storedKeys() ?? made;
  }

  private storedKeys(): VapidKeys | undefined {
    const row = this.sql.sql("SELECT public_key, private_key FROM web_push_vapid WHERE id = 1").get() as
      | { public_key: string; private_key: string }
      | undefined;
    return row ? { publicKey: row.public_key, privateKey: row.private_key } : undefined;
  }

  /**
   * Keeps a page's subscription for its sign-in (the same endpoint again replaces it), for
   * `nodes` only when given.
   */
  subscribe(
    sessionId: string,
    userId: string,
    subscription: PushSubscriptionInput,
    nodes?: readonly string[],
  ): void {
    this.sql
      .sql(
        "INSERT OR REPLACE INTO web_push_subscriptions (endpoint, session_id, user_id, p256dh, auth, at, nodes) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        subscription.endpoint,
        sessionId,
        userId,
        subscription.keys.p256dh,
        subscription.keys.auth,
        this.now(),
        nodes ? JSON.stringify([...new Set(nodes)]) : null,
      );
    this.sql
      .sql(
        `DELETE FROM web_push_subscriptions WHERE session_id = ? AND endpoint NOT IN
          (SELECT endpoint FROM web_push_subscriptions WHERE session_id = ? ORDER BY at DESC, rowid DESC LIMIT ?)`,
      )
      .run(sessionId, sessionId, MAX_SUBSCRIPTIONS_PER_SESSION);
  }

  forUser(userId: string): StoredSubscription[] {
    return this.rows("user_id", userId);
  }

  /** A sign-in's subscriptions (what its page shows as on). */
  forSession(sessionId: string): StoredSubscription[] {
    return this.rows("session_id", sessionId);
  }

  private rows(column: "user_id" | "session_id", value: string): StoredSubscription[] {
    const rows = this.sql
      .sql(`SELECT endpoint, session_id, p256dh, auth, nodes FROM web_push_subscriptions WHERE ${column} = ?`)
      .all(value) as Array<{
      endpoint: string;
      session_id: string;
      p256dh: string;
      auth: string;
      nodes: string | null;
    }>;
    return rows.map((row) => {
      const nodes = nodesOf(row.nodes);
      return {
        endpoint: row.endpoint,
        sessionId: row.session_id,
        keys: { p256dh: row.p256dh, auth: row.auth },
        ...(nodes ? { nodes } : {}),
      };
    });
  }

  /** Sign-out, `/console logout-all`, expiry: the sessions' subscriptions go with them. */
  dropSessions(sessionIds: readonly string[]): void {
    for (const id of sessionIds)
      this.sql.sql("DELETE FROM web_push_subscriptions WHERE session_id = ?").run(id);
  }

  /** A page turned pushes off: only its own sign-in's subscription can go this way. */
  dropEndpointOf(sessionId: string, endpoint: string): void {
    this.sql
      .sql("DELETE FROM web_push_subscriptions WHERE endpoint = ? AND session_id = ?")
      .run(endpoint, sessionId);
  }

  /** The push service said the subscription is gone (404/410), or the page unsubscribed. */
  dropEndpoint(endpoint: string): void {
    this.sql.sql("DELETE FROM web_push_subscriptions WHERE endpoint = ?").run(endpoint);
  }
}
