import type { CodingTurns } from "../contracts/coding-turns.ts";
import type { SessionManager } from "./session-manager.ts";

/** Coding sessions as background tasks and scheduled checks use them (the CodingTurns port). */
export function codingTurns(sessions: SessionManager): CodingTurns {
  return {
    pick: (userId, id) => (id ? sessions.find(userId, id) : sessions.current(userId)),
    run: (session, prompt, ctx) => {
      const record = sessions.find(ctx.userId, session.id);
      if (!record)
        return Promise.resolve({ ok: false, stopped: false, text: "that coding session was closed" });
      return sessions.run(record, prompt, ctx);
    },
  };
}
