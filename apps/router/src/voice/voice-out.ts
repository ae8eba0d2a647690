import type { Logger } from "@phonework/runtime";
import type { ChatHub } from "../chat/chat-hub.ts";
import type { ChatAddress } from "../chat/chat-types.ts";
import type { UserStateStore } from "../users/user-state-store.ts";
import { spokenText } from "./spoken-text.ts";
import type { TextToSpeech, TtsSettings } from "./text-to-speech.ts";

// Voice out: a user who turned /voice on gets a node's short answers also as speech, after the
// text (a voice note where the platform has them: Telegram; an audio file elsewhere). It is an
// extra: the text is already delivered and acknowledged when this runs, a failure is logged and
// nothing else happens, and after one the endpoint is left alone for a while (no retry storm).

/** After a failed synthesis, answers are not spoken for this long. */
const PAUSE_AFTER_FAILURE_MS = 60_000;

export interface VoiceOutDeps {
  /** Absent: no endpoint configured (/voice on says which key to set). */
  tts: { settings: TtsSettings; endpoint: TextToSpeech } | undefined;
  chat: Pick<ChatHub, "sendFile">;
  userState: Pick<UserStateStore, "voiceOut">;
  logger: Logger;
  now: () => number;
}

export class VoiceOut {
  private pausedUntil = 0;

  constructor(private readonly deps: VoiceOutDeps) {}

  /** Whether a speech endpoint is configured. */
  get configured(): boolean {
    return this.deps.tts !== undefined;
  }

  /** Speaks a delivered answer to its user, when they want it and it is short; never throws. */
  async speak(to: ChatAddress, answer: string): Promise<void> {
    const { tts, logger } = this.deps;
    if (!tts || !this.deps.userState.voiceOut(to.userId)) return;
    const text = spokenText(answer, tts.settings.maxChars);
    if (!text || this.deps.now() < this.pausedUntil) return;
    let audio: Buffer;
    try {
      audio = await tts.endpoint.synthesize(text);
    } catch (error) {
      this.pausedUntil = this.deps.now() + PAUSE_AFTER_FAILURE_MS;
      logger.warn({ userId: to.userId, error: (error as Error).message }, "speech synthesis failed");
      return;
    }
    try {
      await this.deps.chat.sendFile(to, {
        name: "answer.ogg",
        data: audio,
        mimeType: "audio/ogg",
        voice: true,
      });
    } catch (error) {
      logger.warn({ userId: to.userId, error: (error as Error).message }, "spoken answer not sent");
    }
  }
}
