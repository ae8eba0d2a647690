import { PlatformError } from "../platform-adapter.ts";

// A Slack message is named by its `ts`, and it is in a thread when it has a `thread_ts` (the thread's
// first message). The id the shared layer keeps carries both, `<thread_ts>/<ts>`, so that an answer
// to it, or a turn's details under it, find the thread again — after a restart too, with no table
// to lose. A message outside any thread is its bare `ts`.

const TS = /^\d{1,12}\.\d{1,9}$/;

export function messageIdOf(ts: string, threadTs?: string): string {
  return threadTs && threadTs !== ts ? `${threadTs}/${ts}` : ts;
}

function parts(id: string): { ts: string; threadTs?: string } {
  const [first, second, ...rest] = id.split("/");
  const ts = second ?? first ?? "";
  const threadTs = second === undefined ? undefined : first;
  if (rest.length > 0 || !TS.test(ts) || (threadTs !== undefined && !TS.test(threadTs)))
    throw new PlatformError("permanent", `not a Slack message id: ${id}`);
  return threadTs === undefined ? { ts } : { ts, threadTs };
}

/** The message's own ts (what chat.update names). */
export const tsOf = (id: string): string => parts(id).ts;

/** The thread the message is in, if any. */
export const threadOf = (id: string): string | undefined => parts(id).threadTs;

/** Where messages under this one go: its thread, or a new thread started on it. */
export const threadRootOf = (id: string): string => {
  const { ts, threadTs } = parts(id);
  return threadTs ?? ts;
};

/** A message id that is a Slack ts at all (slash commands and button presses have made-up ones). */
export const isSlackMessageId = (id: string): boolean => {
  try {
    parts(id);
    return true;
  } catch {
    return false;
  }
};
