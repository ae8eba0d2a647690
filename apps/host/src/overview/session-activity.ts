import { OVERVIEW_LIMITS, OverviewTurn } from "@phonework/protocol";
import { PreparedStatements, type SqliteDatabase } from "@phonework/runtime";
import { z } from "zod";
import { clip } from "./clip-text.ts";

// What each coding session did lately, for the console: the running turn's latest progress lines
// and the last few turns (prompt, answer, how it ended), bounded per session as the overview is.
// The turns are kept in state.db (`session_turns`, one row per session, rewritten by one statement
// when a turn starts or ends) so a host restart keeps them; progress lines are not (a restart ends
// the turn they belong to). A closed session is forgotten. The agents keep the real history.

export const SESSION_TURNS_MIGRATION = `
  CREATE TABLE session_turns (
    session_id TEXT PRIMARY KEY,
    turns TEXT NOT NULL
  );`;

/** What a turn that was running when the host stopped says it ended with. */
export const INTERRUPTED = "Interrupted: the host restarted.";

const StoredTurns = z.array(OverviewTurn);

interface Activity {
  progress: string[];
  turns: OverviewTurn[];
}

export class SessionActivity {
  private readonly sessions = new Map<string, Activity>();
  private readonly sql: PreparedStatements | undefined;

  constructor(
    private readonly now: () => number,
    db?: SqliteDatabase,
  ) {
    this.sql = db ? new PreparedStatements(db) : undefined;
  }

  started(sessionId: string, prompt: string): void {
    const activity = this.of(sessionId);
    activity.progress = [];
    const turn = { prompt: clip(prompt, OVERVIEW_LIMITS.short), started_at: this.now() };
    activity.turns = [...activity.turns, turn].slice(-OVERVIEW_LIMITS.turns);
    this.save(sessionId, activity.turns);
  }

  progress(sessionId: string, line: string): void {
    const activity = this.of(sessionId);
    activity.progress = [...activity.progress, line].slice(-OVERVIEW_LIMITS.progressLines);
  }

  ended(sessionId: string, answer: string, ok: boolean): void {
    const activity = this.of(sessionId);
    activity.progress = [];
    const last = activity.turns.at(-1);
    if (last && last.ended_at === undefined) {
      Object.assign(last, { answer: clip(answer, OVERVIEW_LIMITS.long), ok, ended_at: this.now() });
      this.save(sessionId, activity.turns);
    }
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.sql?.sql("DELETE FROM session_turns WHERE session_id = ?").run(sessionId);
  }

  /** The session's latest progress lines and turns, oldest first. */
  get(sessionId: string): Readonly<Activity> {
    return this.of(sessionId);
  }

  private of(sessionId: string): Activity {
    let activity = this.sessions.get(sessionId);
    if (!activity) {
      activity = { progress: [], turns: this.load(sessionId) };
      this.sessions.set(sessionId, activity);
    }
    return activity;
  }

  /** The turns stored before this start: one still running was cut short by the restart. */
  private load(sessionId: string): OverviewTurn[] {
    const row = this.sql?.sql("SELECT turns FROM session_turns WHERE session_id = ?").get(sessionId) as
      | { turns: string }
      | undefined;
    if (!row) return [];
    const parsed = StoredTurns.safeParse(parseJson(row.turns));
    if (!parsed.success) return [];
    return parsed.data
      .slice(-OVERVIEW_LIMITS.turns)
      .map((turn) =>
        turn.ended_at === undefined
          ? { ...turn, answer: INTERRUPTED, ok: false, ended_at: this.now() }
          : turn,
      );
  }

  private save(sessionId: string, turns: OverviewTurn[]): void {
    this.sql
      ?.sql(
        `INSERT INTO session_turns (session_id, turns) VALUES (?, ?)
         ON CONFLICT (session_id) DO UPDATE SET turns = excluded.turns`,
      )
      .run(sessionId, JSON.stringify(turns));
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
