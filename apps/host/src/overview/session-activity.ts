import { OVERVIEW_LIMITS, type OverviewTurn } from "@phonework/protocol";

// What each coding session did lately, for the console: the running turn's latest progress lines
// and the last few turns (prompt, answer, how it ended). In memory: a restart starts it empty, and
// the agents keep the real history. Bounded per session; a closed session is forgotten.

interface Activity {
  progress: string[];
  turns: OverviewTurn[];
}

export class SessionActivity {
  private readonly sessions = new Map<string, Activity>();

  constructor(private readonly now: () => number) {}

  started(sessionId: string, prompt: string): void {
    const activity = this.of(sessionId);
    activity.progress = [];
    activity.turns = [...activity.turns, { prompt, started_at: this.now() }].slice(-OVERVIEW_LIMITS.turns);
  }

  progress(sessionId: string, line: string): void {
    const activity = this.of(sessionId);
    activity.progress = [...activity.progress, line].slice(-OVERVIEW_LIMITS.progressLines);
  }

  ended(sessionId: string, answer: string, ok: boolean): void {
    const activity = this.of(sessionId);
    activity.progress = [];
    const last = activity.turns.at(-1);
    if (last && last.ended_at === undefined) Object.assign(last, { answer, ok, ended_at: this.now() });
  }

  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** The session's latest progress lines and turns, oldest first. */
  get(sessionId: string): Readonly<Activity> {
    return this.sessions.get(sessionId) ?? { progress: [], turns: [] };
  }

  private of(sessionId: string): Activity {
    let activity = this.sessions.get(sessionId);
    if (!activity) {
      activity = { progress: [], turns: [] };
      this.sessions.set(sessionId, activity);
    }
    return activity;
  }
}
