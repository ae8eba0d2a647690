import type { Logger, SqliteDatabase } from "@phonework/runtime";
import { type RouterConfig, sttSettings } from "../config/router-config.ts";
import { audioToolsOnPath } from "./ffmpeg.ts";
import { openAiSpeechToText } from "./speech-to-text.ts";
import { VoiceInput } from "./voice-input.ts";
import { VoiceNotes } from "./voice-notes.ts";

/** The router's voice input: the STT_* endpoint (if set), ffmpeg from PATH, kept notes in router.db. */
export function voiceInputFor(
  config: RouterConfig,
  options: { db: SqliteDatabase; now: () => number; logger: Logger },
): VoiceInput {
  const settings = sttSettings(config);
  const logger = options.logger.child({ component: "voice" });
  const tools = audioToolsOnPath();
  logger.info(
    {
      stt: settings ? { baseURL: settings.baseURL, model: settings.model } : false,
      ffmpeg: tools.canConvert,
    },
    "voice notes configured",
  );
  return new VoiceInput({
    stt: settings ? { settings, endpoint: openAiSpeechToText(settings) } : undefined,
    notes: new VoiceNotes(options.db, options.now),
    tools,
    logger,
  });
}
