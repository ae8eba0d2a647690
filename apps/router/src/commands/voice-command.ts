import type { ChatReply } from "../chat/chat-types.ts";
import type { UserStateStore } from "../users/user-state-store.ts";
import type { Asker } from "./command-context.ts";

// /voice on|off: the asker's own short answers also arrive as speech (voice/). It only ever sets
// the asker's choice; alone, it says the current one. Without a speech endpoint on the router it
// cannot be turned on, and says which key to set.

export const VOICE_USAGE = "Usage: /voice on|off";

export const NO_SPEECH_ENDPOINT =
  "Spoken answers need a speech endpoint on the router: set TTS_BASE_URL (or STT_BASE_URL) to an OpenAI-compatible /v1 URL.";

export function voiceCommand(
  asker: Asker,
  arg: string,
  userState: UserStateStore,
  voiceOut: { readonly configured: boolean } | undefined,
): ChatReply {
  if (arg && arg !== "on" && arg !== "off") return { text: VOICE_USAGE };
  const configured = voiceOut?.configured === true;
  if (arg === "on" && !configured) return { text: NO_SPEECH_ENDPOINT };
  if (arg) userState.setVoiceOut(asker.userId, arg === "on");
  const on = userState.voiceOut(asker.userId) && configured;
  if (arg)
    return { text: on ? "✅ Short answers now also come as speech." : "✅ Answers come as text only." };
  return {
    text: `Spoken answers: ${on ? "on" : "off"}.`,
    buttons: [[{ label: on ? "off" : "on", command: `/voice ${on ? "off" : "on"}` }]],
  };
}
