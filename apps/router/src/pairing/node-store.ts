import { PreparedStatements, type SqliteDatabase, type SqliteStatement } from "@phonework/runtime";

// The router's table of paired nodes: who each node is (its public key), who paired it (the
// owner), who else it serves (shares), and the one-time join codes that create them. Kept in
// router.db so `phonework pair` on the same machine can mint a code while the router runs.

export const NODES_MIGRATION = `
  CREATE TABLE nodes (
    node_id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    public_key TEXT NOT NULL,
    owner TEXT NOT NULL,
    paired_at INTEGER NOT NULL,
    last_seen INTEGER,
    revoked_at INTEGER
  );
  CREATE TABLE node_shares (
    node_id TEXT NOT NULL REFERENCES nodes (node_id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    PRIMARY KEY (node_id, user_id)
  );
  CREATE TABLE join_codes (
    secret_hash TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  CREATE INDEX join_codes_node ON join_codes (node_id);`;

/** A join code minted for a node that is paired: it replaces that key (and only that key). */
export const JOIN_CODES_REPLACE_MIGRATION = "ALTER TABLE join_codes ADD COLUMN replaces_key TEXT;";

export interface PairedNode {
  nodeId: string;
  displayName: string;
  publicKey: string;
  owner: string;
  pairedAt: number;
  lastSeen: number | undefined;
  revokedAt: number | undefined;
  sharedWith: string[];
}

interface NodeRow {
  node_id: string;
  display_name: string;
  public_key: string;
  owner: string;
  paired_at: number;
  last_seen: number | null;
  revoked_at: number | null;
}

export class NodeStore {
  /** Each statement is prepared once: `get` and `touch` run on every node handshake. */
  private readonly statements: PreparedStatements;

  constructor(private readonly db: SqliteDatabase) {
    this.statements = new PreparedStatements(db);
  }

  private sql(text: string): SqliteStatement {
    return this.statements.sql(text);
  }

  get(nodeId: string): PairedNode | undefined {
    const row = this.sql("SELECT * FROM nodes WHERE node_id = ?").get(nodeId) as NodeRow | undefined;
    return row ? this.toNode(row) : undefined;
  }

  /**
   * Whether a host naming `nodeId` may try to get in: the id is paired and not revoked, or a join
   * code for it is waiting (unused, unexpired). Asked before every key-mode upgrade, so one indexed
   * lookup; whether the host really holds the key or the code is for the handshake to prove.
   */
  expectsNode(nodeId: string, now: number): boolean {
    const row = this.sql(
      `SELECT 1 FROM nodes WHERE node_id = ? AND revoked_at IS NULL
       UNION ALL
       SELECT 1 FROM join_codes WHERE node_id = ? AND used_at IS NULL AND expires_at > ?
       LIMIT 1`,
    ).get(nodeId, nodeId, now);
    return row !== undefined;
  }

  list(): PairedNode[] {
    const rows = this.sql("SELECT * FROM nodes ORDER BY node_id").all() as NodeRow[];
    return rows.map((row) => this.toNode(row));
  }

  /** Records a join code (only its hash: the code itself is shown once and never stored). */
  addJoinCode(
    secretHash: string,
    nodeId: string,
    owner: string,
    times: { now: number; expiresAt: number },
    replacesKey?: string,
  ): void {
    this.sql(
      "INSERT INTO join_codes (secret_hash, node_id, owner, created_at, expires_at, replaces_key) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(secretHash, nodeId, owner, times.now, times.expiresAt, replacesKey ?? null);
  }

  /**
   * Uses a join code and pairs the key with it, in one transaction: two hosts racing with the same
   * code cannot both get in. Returns the owner, or why the code was refused.
   */
  redeemJoinCode(
    secretHash: string,
    nodeId: string,
    publicKey: string,
    displayName: string,
    now: number,
  ): { ok: true; owner: string } | { ok: false; reason: string } {
    return this.db.transaction(() => {
      const code = this.sql(
        "SELECT node_id, owner, expires_at, used_at, replaces_key FROM join_codes WHERE secret_hash = ?",
      ).get(secretHash) as
        | {
            node_id: string;
            owner: string;
            expires_at: number;
            used_at: number | null;
            replaces_key: string | null;
          }
        | undefined;
      if (!code || code.node_id !== nodeId) return { ok: false as const, reason: "unknown join code" };
      if (code.used_at !== null) return { ok: false as const, reason: "join code already used" };
      if (code.expires_at <= now) return { ok: false as const, reason: "join code expired" };
      const existing = this.get(nodeId);
      // A paired node takes a new key only from a code minted to replace the key it has now.
      if (existing && existing.revokedAt === undefined && code.replaces_key !== existing.publicKey)
        return { ok: false as const, reason: `node ${nodeId} is already paired with another key` };
      this.sql("UPDATE join_codes SET used_at = ? WHERE secret_hash = ?").run(now, secretHash);
      // Re-pairing a revoked node keeps its shares: the admin chose the same name on purpose.
      this.sql(
        `INSERT INTO nodes (node_id, display_name, public_key, owner, paired_at, last_seen, revoked_at)
           VALUES (?, ?, ?, ?, ?, ?, NULL)
           ON CONFLICT (node_id) DO UPDATE SET public_key = excluded.public_key, owner = excluded.owner,
             paired_at = excluded.paired_at, revoked_at = NULL`,
      ).run(nodeId, displayName, publicKey, code.owner, now, now);
      return { ok: true as const, owner: code.owner };
    })();
  }

  /** Drops codes past their expiry (they can never be used; no reason to keep even their hashes). */
  pruneJoinCodes(now: number): void {
    this.sql("DELETE FROM join_codes WHERE expires_at <= ? OR used_at IS NOT NULL").run(now);
  }

  touch(nodeId: string, displayName: string, now: number): void {
    this.sql("UPDATE nodes SET last_seen = ?, display_name = ? WHERE node_id = ?").run(
      now,
      displayName,
      nodeId,
    );
  }

  revoke(nodeId: string, now: number): boolean {
    return this.sql("UPDATE nodes SET revoked_at = ? WHERE node_id = ?").run(now, nodeId).changes > 0;
  }

  forget(nodeId: string): boolean {
    this.sql("DELETE FROM join_codes WHERE node_id = ?").run(nodeId);
    return this.sql("DELETE FROM nodes WHERE node_id = ?").run(nodeId).changes > 0;
  }

  share(nodeId: string, userId: string): void {
    this.sql("INSERT OR IGNORE INTO node_shares (node_id, user_id) VALUES (?, ?)").run(nodeId, userId);
  }

  unshare(nodeId: string, userId: string): boolean {
    return (
      this.sql("DELETE FROM node_shares WHERE node_id = ? AND user_id = ?").run(nodeId, userId).changes > 0
    );
  }

  private toNode(row: NodeRow): PairedNode {
    const shares = this.sql("SELECT user_id FROM node_shares WHERE node_id = ? ORDER BY user_id").all(
      row.node_id,
    ) as Array<{ user_id: string }>;
    return {
      nodeId: row.node_id,
      displayName: row.display_name,
      publicKey: row.public_key,
      owner: row.owner,
      pairedAt: row.paired_at,
      lastSeen: row.last_seen ?? undefined,
      revokedAt: row.revoked_at ?? undefined,
      sharedWith: shares.map((share) => share.user_id),
    };
  }
}
