import type { ChatReply } from "../chat/chat-types.ts";
import {
  DETAILS_MODES,
  type DetailsMode,
  effectiveDetailsMode,
  type ThreadSupport,
} from "../users/details-mode.ts";
import type { UserStateStore } from "../users/user-state-store.ts";
import type { Asker } from "./command-context.ts";

// /details thread|inline|off: where this chat shows a turn's details (tool calls, their results,
// the turn's usage). Alone, it says the current choice and offers the others as buttons.

const WHERE: Record<DetailsMode, string> = {
  thread: "under the turn's message (a thread, or replies to it)",
  inline: "as lines in the turn's progress message",
  off: "not shown (status and answer only)",
};

export const DETAILS_USAGE = "Usage: /details thread|inline|off";

export function detailsCommand(asker: Asker, arg: string, userState: UserStateStore): ChatReply {
  const threads: ThreadSupport = asker.threads ?? "none";
  const chosen = DETAILS_MODES.find((mode) => mode === arg);
  if (arg && !chosen) return { text: DETAILS_USAGE };
  if (chosen) userState.setDetailsMode(asker.userId, asker.chatId, chosen);
  const mode = effectiveDetailsMode(chosen ?? userState.detailsMode(asker.userId, asker.chatId), threads);
  const degraded = chosen === "thread" && mode !== "thread" ? " (this chat has no threads or replies)" : "";
  const text = `${chosen ? "✅ Details" : "Details"} in this chat: ${WHERE[mode]}${degraded}.`;
  if (chosen) return { text };
  // Where the chat has no threads, "thread" would be the same as "inline": not offered.
  const choices = DETAILS_MODES.filter((m) => m !== mode && (m !== "thread" || threads !== "none"));
  return {
    text: `${text}\n/details ${DETAILS_MODES.filter((m) => m !== "thread" || threads !== "none").join("|")}`,
    buttons: [choices.map((m) => ({ label: m, command: `/details ${m}` }))],
  };
}
