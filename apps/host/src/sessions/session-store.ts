import { readJsonFile, writeJsonFileAtomic } from "@phonework/runtime";
import { z } from "zod";

// Coding sessions on this host, persisted under DATA_DIR so they survive a restart and can
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

const SessionFile = z.object({
  version: z.literal(1),
  next_id: z.number().int().positive(),
  sessions: z.array(SessionRecord),
  active: z.record(z.string(), z.string()),
});
type SessionFile = z.infer<typeof SessionFile>;

export class SessionStore {
  private constructor(
    private readonly state: SessionFile,
    private readonly persist: (state: SessionFile) => void,
  ) {}

  static open(path: string): SessionStore {
    const state = readJsonFile(path, SessionFile, { version: 1, next_id: 1, sessions: [], active: {} });
    return new SessionStore(state, (s) => writeJsonFileAtomic(path, s));
  }

  static inMemory(): SessionStore {
    return new SessionStore({ version: 1, next_id: 1, sessions: [], active: {} }, () => {});
  }

  create(fields: Omit<SessionRecord, "id">): SessionRecord {
    const record: SessionRecord = { id: String(this.state.next_id++), ...fields };
    this.state.sessions.push(record);
    this.state.active[record.user_id] = record.id;
    this.persist(this.state);
    return record;
  }

  update(id: string, changes: Partial<Omit<SessionRecord, "id" | "user_id">>): SessionRecord | undefined {
    const index = this.state.sessions.findIndex((s) => s.id === id);
    const current = this.state.sessions[index];
    if (!current) return undefined;
    const next = { ...current, ...changes };
    this.state.sessions[index] = next;
    this.persist(this.state);
    return next;
  }

  remove(id: string): void {
    this.state.sessions = this.state.sessions.filter((s) => s.id !== id);
    for (const [user, active] of Object.entries(this.state.active)) {
      if (active === id) delete this.state.active[user];
    }
    this.persist(this.state);
  }

  get(id: string): SessionRecord | undefined {
    return this.state.sessions.find((s) => s.id === id);
  }

  forUser(userId: string): SessionRecord[] {
    return this.state.sessions.filter((s) => s.user_id === userId);
  }

  all(): SessionRecord[] {
    return [...this.state.sessions];
  }

  active(userId: string): SessionRecord | undefined {
    const id = this.state.active[userId];
    return id ? this.get(id) : undefined;
  }

  setActive(userId: string, id: string | undefined): void {
    if (id) this.state.active[userId] = id;
    else delete this.state.active[userId];
    this.persist(this.state);
  }
}
