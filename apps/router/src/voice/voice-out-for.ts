import type { Logger } from "@phonework/runtime";
import type { ChatHub } from "../chat/chat-hub.ts";
import { type RouterConfig, ttsSettings } from "../config/router-config.ts";
import type { UserStateStore } from "../users/user-state-store.ts";
import { openAiTextToSpeech } from "./text-to-speech.ts";
import { VoiceOut } from "./voice-out.ts";

/** The router's voice out: the TTS_* endpoint (else STT_*'s), if any. */
export function voiceOutFor(
  config: RouterConfig,
  options: { chat: ChatHub; userState: UserStateStore; logger: Logger; now: () => number },
): VoiceOut {
  const settings = ttsSettings(config);
  return new VoiceOut({
    tts: settings ? { settings, endpoint: openAiTextToSpeech(settings) } : undefined,
    chat: options.chat,
    userState: options.userState,
    logger: options.logger.child({ component: "voice-out" }),
    now: options.now,
  });
}
