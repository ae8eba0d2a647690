import { type Logger, openDatabase, PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { z } from "zod";
import { importLegacyJsonFile } from "../storage/legacy-state-file.ts";

// Coding sessions on this host, kept in the host's state.db so they survive a restart and can
// be resumed (the agent's own session/thread id is kept). Each user has at most one active
// session: while it is set, their messages go straight to it.

export const AgentName = z.enum(["claude", "codex"]);
export type AgentName = z.infer<typeof AgentName>;

export const SessionRecord = z.object({
  id: z.string(),
  user_id: z.string(),
  agent: AgentName,
  /** Project name as the user gave it, relative to WORKING_DIR. */
  project: z.string(),
  /** Absolute, resolved project directory. */
  cwd: z.string(),
  /** The agent's own id: Claude's session_id or Codex's thread id. */
  agent_session_id: z.string().optional(),
  platform: z.string(),
  chat_id: z.string(),
  /** Per-session overrides for each turn (/model). */
  model: z.string().optional(),
  effort: z.string().optional(),
  created_at: z.number(),
  last_activity: z.number(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** sessions.json, where older hosts kept them: imported on the first open, then renamed. */
const SessionFile = z.object({
  version: z.literal(1),
  next_id: z.number().int().positive(),
  sessions: z.array(SessionRecord),
  active: z.record(z.string(), z.string()),
});
type SessionFile = z.infer<typeof SessionFile>;

// AUTOINCREMENT: the id of a closed session is never given to a new one (ids are shown to users).
export const SESSIONS_MIGRATION = `
  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    agent TEXT NOT NULL,
    project TEXT NOT NULL,
    cwd TEXT NOT NULL,
    agent_session_id TEXT,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    model TEXT,
    effort TEXT,
    created_at INTEGER NOT NULL,
    last_activity INTEGER NOT NULL
  );
  CREATE INDEX sessions_user ON sessions (user_id);
  CREATE TABLE active_sessions (
    user_id TEXT PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE
  );`;

const FIELDS = [
  "user_id",
  "agent",
  "project",
  "cwd",
  "agent_session_id",
  "platform",
  "chat_id",
  "model",
  "effort",
  "created_at",
  "last_activity",
] as const;
const INSERT = `INSERT INTO sessions (id, ${FIELDS.join(", ")}) VALUES (@id, ${FIELDS.map((f) => `@${f}`).join(", ")})`;
const UPDATE = `UPDATE sessions SET ${FIELDS.map((f) => `${f} = @${f}`).join(", ")} WHERE id = @id`;

export class SessionStore {
  private readonly statements: PreparedStatements;

  private constructor(private readonly db: SqliteDatabase) {
    this.statements = new PreparedStatements(db);
  }

  /** Imports `legacyJsonPath` once if it is there. */
  static open(db: SqliteDatabase, legacyJsonPath?: string, logger?: Logger): SessionStore {
    const store = new SessionStore(db);
    if (legacyJsonPath) importLegacyJsonFile(db, legacyJsonPath, SessionFile, (f) => store.import(f), logger);
    return store;
  }

  static inMemory(): SessionStore {
    return new SessionStore(openDatabase(":memory:", { migrations: [SESSIONS_MIGRATION] }));
  }

  create(fields: Omit<SessionRecord, "id">): SessionRecord {
    return this.db.transaction(() => {
      const { lastInsertRowid } = this.statements.sql(INSERT).run(toRow(fields, null));
      const record: SessionRecord = { ...fields, id: String(lastInsertRowid) };
      this.setActive(record.user_id, record.id);
      return record;
    })();
  }

  update(id: string, changes: Partial<Omit<SessionRecord, "id" | "user_id">>): SessionRecord | undefined {
    return this.db.transaction(() => {
      const current = this.get(id);
      if (!current) return undefined;
      const next = { ...current, ...changes };
      this.statements.sql(UPDATE).run(toRow(next, rowId(id) ?? null));
      return next;
    })();
  }

  remove(id: string): void {
    // Its user's active pointer goes with it (ON DELETE CASCADE).
    this.statements.sql("DELETE FROM sessions WHERE id = ?").run(rowId(id) ?? null);
  }

  get(id: string): SessionRecord | undefined {
    return fromRow(this.statements.sql("SELECT * FROM sessions WHERE id = ?").get(rowId(id) ?? null));
  }

  forUser(userId: string): SessionRecord[] {
    return fromRows(this.statements.sql("SELECT * FROM sessions WHERE user_id = ? ORDER BY id").all(userId));
  }

  all(): SessionRecord[] {
    return fromRows(this.statements.sql("SELECT * FROM sessions ORDER BY id").all());
  }

  active(userId: string): SessionRecord | undefined {
    const row = this.statements
      .sql(
        `SELECT sessions.* FROM active_sessions JOIN sessions ON sessions.id = active_sessions.session_id
         WHERE active_sessions.user_id = ?`,
      )
      .get(userId);
    return fromRow(row);
  }

  /** An id that names no session clears the user's active session, as undefined does. */
  setActive(userId: string, id: string | undefined): void {
    this.db.transaction(() => {
      this.statements.sql("DELETE FROM active_sessions WHERE user_id = ?").run(userId);
      if (id === undefined) return;
      this.statements
        .sql("INSERT INTO active_sessions (user_id, session_id) SELECT ?, id FROM sessions WHERE id = ?")
        .run(userId, rowId(id) ?? null);
    })();
  }

  private import(file: SessionFile): void {
    for (const session of file.sessions) {
      const id = rowId(session.id);
      // Older hosts only ever gave numeric ids; one already here was imported before.
      if (id === undefined || this.get(session.id)) continue;
      this.statements.sql(INSERT).run(toRow(session, id));
    }
    for (const [userId, id] of Object.entries(file.active)) this.setActive(userId, id);
    // New ids continue after every id the old file gave out, closed sessions' included.
    const given = file.next_id - 1;
    const raised = this.statements
      .sql("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'sessions'")
      .run(given);
    if (raised.changes === 0 && given > 0) {
      this.statements.sql("INSERT INTO sqlite_sequence (name, seq) VALUES ('sessions', ?)").run(given);
    }
  }
}

/** Session ids are the table's integer keys written in decimal; anything else names no session. */
function rowId(id: string): number | undefined {
  return /^[1-9]\d{0,15}$/.test(id) ? Number(id) : undefined;
}

function toRow(fields: Omit<SessionRecord, "id">, id: number | null): Record<string, unknown> {
  const row: Record<string, unknown> = { id };
  for (const field of FIELDS) row[field] = fields[field] ?? null;
  return row;
}

/** A row read back through the schema; one that does not fit (edited by hand, say) is skipped. */
function fromRow(row: unknown): SessionRecord | undefined {
  if (row === undefined) return undefined;
  const fields = Object.entries(row as Record<string, unknown>).filter(([, value]) => value !== null);
  const parsed = SessionRecord.safeParse({
    ...Object.fromEntries(fields),
    id: String((row as { id: unknown }).id),
  });
  return parsed.success ? parsed.data : undefined;
}

function fromRows(rows: unknown[]): SessionRecord[] {
  return rows.map(fromRow).filter((session) => session !== undefined);
}
