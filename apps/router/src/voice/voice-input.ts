import type { Logger } from "@phonework/runtime";
import {
  voiceDownloadFailedText,
  voiceEmptyText,
  voiceFormatText,
  voiceHeardText,
  voiceNotConfiguredText,
  voiceNothingToRetryText,
  voiceTooBigText,
  voiceTooLongText,
  voiceUnavailableText,
} from "../chat/user-messages.ts";
import type { AttachmentRef, ChannelMessage } from "../platforms/platform-adapter.ts";
import { headerSeconds, isAudio, sniffAudio } from "./audio-format.ts";
import type { AudioTools } from "./ffmpeg.ts";
import { type AudioUpload, type SpeechToText, SttError, type SttSettings } from "./speech-to-text.ts";
import { spokenCommand } from "./spoken-command.ts";
import type { VoiceNotes } from "./voice-notes.ts";

// A voice note heard before routing, the same for every platform:
//  1. a voice note is a message with no text and one audio file (an audio file with a caption is a
//     file for the host, as before);
//  2. without STT configured the user is told which keys turn it on, and the note is kept;
//  3. the limits are checked on what the platform declares (size, duration) before fetching, and
//     again on the bytes (size, the container's own duration): over them, a sentence, nothing kept;
//  4. it is sent to the endpoint as it is; a format the endpoint refuses is converted to WAV with
//     ffmpeg (and every later note for this endpoint converted first), or without ffmpeg the user is
//     told which formats to send;
//  5. heard: the transcript, a leading spoken "slash" read as "/", is the message text, shown back
//     once; not heard (down, slow, fetch failed): a sentence, and the note kept for /retry.

/** What became of a voice note: words to hand on as the message text, or only a sentence for the user. */
export type Heard =
  | { kind: "words"; text: string; echo: string }
  | { kind: "told"; text: string; retry: boolean };

export interface VoiceInputDeps {
  /** Undefined: STT is not configured. */
  stt: { settings: SttSettings; endpoint: SpeechToText } | undefined;
  notes: VoiceNotes;
  tools: AudioTools;
  logger: Logger;
}

type Download = (ref: AttachmentRef) => Promise<Buffer>;

/** A transcript is the endpoint's answer: bounded like a typed message (the console's limit). */
const MAX_TRANSCRIPT_CHARS = 20_000;

const told = (text: string, retry = false): Heard => ({ kind: "told", text, retry });

export class VoiceInput {
  /** The endpoint refused a format once: convert every note first. */
  private convertFirst = false;

  constructor(private readonly deps: VoiceInputDeps) {}

  /** The message's one audio file when the message is a voice note. */
  static voiceNoteOf(message: ChannelMessage): AttachmentRef | undefined {
    const [only, ...more] = message.attachments;
    return message.text.trim() === "" && only && more.length === 0 && isAudio(only) ? only : undefined;
  }

  /**
   * Hears a voice note (see voiceNoteOf) of `userId` on `adapter`. One refused by its declared limits
   * leaves a note kept earlier alone, to be retried still.
   */
  async hear(adapter: string, userId: string, message: ChannelMessage, download?: Download): Promise<Heard> {
    return this.hearKept(adapter, userId, message, undefined, download);
  }

  /** Hears the user's kept voice note again (`/retry`). */
  async retry(adapter: string, userId: string, download?: Download): Promise<Heard> {
    const kept = this.deps.notes.find(adapter, userId);
    if (!kept) return told(voiceNothingToRetryText);
    return this.hearKept(adapter, userId, kept.message, { audio: kept.audio }, download);
  }

  private async hearKept(
    adapter: string,
    userId: string,
    message: ChannelMessage,
    /** Set when this is the kept note (`/retry`), with its audio if it was fetched. */
    kept: { audio: Buffer | undefined } | undefined,
    download: Download | undefined,
  ): Promise<Heard> {
    const audio = kept?.audio;
    const { stt, notes } = this.deps;
    const ref = message.attachments[0];
    if (!ref) return told(voiceNothingToRetryText);
    const keep = (data: Buffer | undefined) => notes.keep(adapter, userId, message, data);
    if (!stt) {
      keep(audio);
      return told(voiceNotConfiguredText);
    }
    const { settings, endpoint } = stt;
    const declared = this.overLimits(settings, ref.size ?? 0, ref.durationS ?? 0);
    if (declared) {
      if (kept) notes.forget(adapter, userId);
      return told(declared);
    }
    let data = audio;
    if (!data) {
      try {
        if (!download) throw new Error("this chat cannot send files to the bot");
        data = await download(ref);
      } catch (error) {
        this.deps.logger.warn({ err: (error as Error).message }, "voice note download failed");
        keep(undefined);
        return told(voiceDownloadFailedText, true);
      }
    }
    const heard = await this.transcribe(settings, endpoint, data);
    if (heard.kind === "unavailable") keep(data);
    else notes.forget(adapter, userId);
    return heard.kind === "unavailable" ? told(voiceUnavailableText(heard.why), true) : heard.result;
  }

  private overLimits(settings: SttSettings, bytes: number, seconds: number): string | undefined {
    if (bytes > settings.maxBytes) return voiceTooBigText(bytes, settings.maxBytes);
    if (seconds > settings.maxSeconds) return voiceTooLongText(seconds, settings.maxSeconds);
    return undefined;
  }

  private async transcribe(
    settings: SttSettings,
    endpoint: SpeechToText,
    data: Buffer,
  ): Promise<{ kind: "unavailable"; why: string } | { kind: "done"; result: Heard }> {
    const format = sniffAudio(data);
    const seconds = headerSeconds(data) ?? (await this.deps.tools.probeSeconds(data)) ?? 0;
    const over = this.overLimits(settings, data.length, seconds);
    if (over) return { kind: "done", result: told(over) };
    let upload: AudioUpload | undefined = {
      data,
      name: `voice.${format.ext ?? "bin"}`,
      mimeType: format.mimeType,
    };
    let converted = false;
    if (format.ext === undefined || (this.convertFirst && format.ext !== "wav")) {
      upload = await this.toWav(settings, data);
      if (!upload) return { kind: "done", result: told(voiceFormatText(format.label)) };
      converted = true;
    }
    for (;;) {
      try {
        const text = spokenCommand((await endpoint.transcribe(upload)).slice(0, MAX_TRANSCRIPT_CHARS));
        if (!text) return { kind: "done", result: told(voiceEmptyText) };
        return { kind: "done", result: { kind: "words", text, echo: voiceHeardText(text) } };
      } catch (error) {
        const failure = error instanceof SttError ? error : new SttError("unavailable", String(error));
        this.deps.logger.warn({ err: failure.message, format: format.label }, "transcription failed");
        if (failure.kind === "unavailable") return { kind: "unavailable", why: describe(failure) };
        if (converted) return { kind: "unavailable", why: `refused the audio (${failure.message})` };
        upload = await this.toWav(settings, data);
        if (!upload) return { kind: "done", result: told(voiceFormatText(format.label)) };
        this.convertFirst = true;
        converted = true;
      }
    }
  }

  /** The audio as WAV, or undefined without ffmpeg (or when it could not read it). */
  private async toWav(settings: SttSettings, data: Buffer): Promise<AudioUpload | undefined> {
    if (!this.deps.tools.canConvert) return undefined;
    try {
      const wav = await this.deps.tools.toWav(data, settings.maxSeconds);
      return { data: wav, name: "voice.wav", mimeType: "audio/wav" };
    } catch (error) {
      this.deps.logger.warn({ err: (error as Error).message }, "audio conversion failed");
      return undefined;
    }
  }
}

function describe(error: SttError): string {
  if (error.status === 401 || error.status === 403) return "refused the router's key (STT_API_KEY)";
  if (error.status === 404) return "has no transcription endpoint there (STT_BASE_URL)";
  if (error.status === 429) return "is busy (rate limited)";
  if (error.status !== undefined) return `answered ${error.message}`;
  return error.message === "timed out" ? "did not answer in time" : "could not be reached";
}
