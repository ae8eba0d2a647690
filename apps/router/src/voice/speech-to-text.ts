import { lazyOpenAiClient } from "./openai-client.ts";

// The transcription endpoint: OpenAI's `POST {base}/audio/transcriptions` (multipart: file, model),
// which Groq, whisper.cpp's server and faster-whisper's speak too, through the openai SDK pointed at
// STT_BASE_URL. A refusal of the request itself (400, 415, 422: the format, mostly) is told apart
// from the endpoint being down, slow or refusing the key, which a later /retry may get past.

export interface SttSettings {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
  maxSeconds: number;
  maxBytes: number;
  timeoutMs: number;
}

export interface AudioUpload {
  data: Buffer;
  name: string;
  mimeType: string;
}

export class SttError extends Error {
  override readonly name = "SttError";
  constructor(
    /** `rejected`: the endpoint refused this audio; `unavailable`: down, slow, or refusing the key. */
    readonly kind: "rejected" | "unavailable",
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface SpeechToText {
  /** The transcript; throws SttError. */
  transcribe(audio: AudioUpload): Promise<string>;
}

const REJECTED = new Set([400, 415, 422]);

export function openAiSpeechToText(settings: SttSettings): SpeechToText {
  const open = lazyOpenAiClient(settings);
  return {
    async transcribe(audio) {
      const [openai, { toFile, APIConnectionTimeoutError }] = await Promise.all([open(), import("openai")]);
      try {
        const file = await toFile(audio.data, audio.name, { type: audio.mimeType });
        const result = await openai.audio.transcriptions.create({ file, model: settings.model });
        return typeof result === "string" ? result : result.text;
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        if (typeof status === "number")
          throw new SttError(REJECTED.has(status) ? "rejected" : "unavailable", `HTTP ${status}`, status);
        const slow = error instanceof APIConnectionTimeoutError;
        throw new SttError("unavailable", slow ? "timed out" : "could not be reached");
      }
    },
  };
}
