import type { HostFrame, OverviewRequestFrame } from "@phonework/protocol";
import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { TurnObserver } from "../coding/session-manager.ts";
import type { OverviewSources } from "./build-overview.ts";
import { answerOverviewRequest } from "./link-overview.ts";
import { OverviewChanges } from "./overview-changes.ts";
import { SessionActivity } from "./session-activity.ts";

// The host's side of the console's overview: what coding sessions did lately, the notices that a
// user's work changed, and the answers to the router's requests. The stores it reads are handed in
// once they exist (`answer`), since the session manager needs the observer made here first.

/** Changes within this long go to the router as one notice. */
const COALESCE_MS = 250;

export interface OverviewDeps {
  send: (frame: HostFrame) => boolean;
  servesUser: (userId: string) => boolean;
  now: () => number;
  logger: Logger;
  /** state.db, where sessions' recent turns are kept across restarts. */
  db?: SqliteDatabase;
}

export interface HostOverview {
  readonly activity: SessionActivity;
  /** Feeds the activity, and says the session's user's overview changed. */
  readonly observer: TurnObserver;
  /** Something of this user's changed (an outbox item for them, an approval). */
  changed(userId: string): void;
  /** The link came up or went down. */
  linkUp(up: boolean): void;
  answer(frame: OverviewRequestFrame, sources: OverviewSources): void;
  close(): void;
}

export function createOverview(deps: OverviewDeps): HostOverview {
  let up = false;
  const activity = new SessionActivity(deps.now, deps.db);
  const changes = new OverviewChanges({
    send: (frame) => void deps.send(frame),
    connected: () => up,
    delayMs: COALESCE_MS,
  });
  const changed = (userId: string) => changes.changed(userId);
  return {
    activity,
    observer: {
      started(session, prompt) {
        activity.started(session.id, prompt);
        changed(session.user_id);
      },
      progress(session, line) {
        activity.progress(session.id, line);
        changed(session.user_id);
      },
      ended(session, outcome) {
        activity.ended(session.id, outcome.text, outcome.ok);
        changed(session.user_id);
      },
      closed(session) {
        activity.forget(session.id);
        changed(session.user_id);
      },
    },
    changed,
    linkUp(next) {
      up = next;
      if (!next) changes.close();
    },
    answer(frame, sources) {
      answerOverviewRequest(frame, { ...deps, sources });
    },
    close: () => changes.close(),
  };
}
