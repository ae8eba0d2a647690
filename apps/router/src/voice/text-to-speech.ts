import { lazyOpenAiClient } from "./openai-client.ts";

// The speech endpoint: OpenAI's `POST {base}/audio/speech` (JSON: model, voice, input,
// response_format), through the openai SDK pointed at TTS_BASE_URL. Opus in an OGG container is
// what Telegram plays as a voice note, and what every other platform takes as an audio file.

export interface TtsSettings {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
  voice: string;
  maxChars: number;
  timeoutMs: number;
}

export interface TextToSpeech {
  /** OGG/Opus audio of `text`; throws when the endpoint fails (status in the message, never the text). */
  synthesize(text: string): Promise<Buffer>;
}

/** Larger audio than a short answer could make is not taken (a misbehaving endpoint). */
const MAX_AUDIO_BYTES = 20 * 1024 * 1024;

export function openAiTextToSpeech(settings: TtsSettings): TextToSpeech {
  // One attempt (the shared client never retries): the text is already in the chat.
  const open = lazyOpenAiClient(settings);
  return {
    async synthesize(text) {
      const openai = await open();
      try {
        const response = await openai.audio.speech.create({
          model: settings.model,
          voice: settings.voice,
          input: text,
          response_format: "opus",
        });
        const audio = Buffer.from(await response.arrayBuffer());
        if (audio.length === 0 || audio.length > MAX_AUDIO_BYTES)
          throw new Error(`audio of ${audio.length} bytes`);
        return audio;
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        throw new Error(typeof status === "number" ? `HTTP ${status}` : (error as Error).message);
      }
    },
  };
}
