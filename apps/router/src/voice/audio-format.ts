import type { AttachmentRef } from "../platforms/platform-adapter.ts";

// What a received audio file is and how long it lasts, read from the bytes themselves (the name and
// type are the sender's): the container from its magic bytes, the duration from an OGG or WAV
// header. Nothing here decodes audio; a forged header can only make a file look longer (refused)
// or shorter (then the byte cap still bounds it).

export interface AudioFormat {
  /** The extension the endpoint recognises the format by ("ogg", "wav"…); undefined when unknown. */
  ext: string | undefined;
  mimeType: string;
  label: string;
}

const AUDIO_EXTENSIONS = /\.(ogg|oga|opus|mp3|m4a|mp4|mpeg|mpga|wav|webm|weba|flac|aac|amr|caf)$/i;

/** An attachment the platform or its name says is audio. */
export function isAudio(ref: AttachmentRef): boolean {
  return (ref.mimeType?.toLowerCase().startsWith("audio/") ?? false) || AUDIO_EXTENSIONS.test(ref.name);
}

const startsWith = (data: Buffer, text: string, at = 0) =>
  data.subarray(at, at + text.length).toString("latin1") === text;

export function sniffAudio(data: Buffer): AudioFormat {
  if (startsWith(data, "OggS")) return { ext: "ogg", mimeType: "audio/ogg", label: "OGG" };
  if (startsWith(data, "RIFF") && startsWith(data, "WAVE", 8))
    return { ext: "wav", mimeType: "audio/wav", label: "WAV" };
  if (startsWith(data, "fLaC")) return { ext: "flac", mimeType: "audio/flac", label: "FLAC" };
  if (startsWith(data, "ID3") || (data[0] === 0xff && ((data[1] ?? 0) & 0xe0) === 0xe0))
    return { ext: "mp3", mimeType: "audio/mpeg", label: "MP3" };
  if (startsWith(data, "ftyp", 4)) return { ext: "m4a", mimeType: "audio/mp4", label: "M4A" };
  if (data.length >= 4 && data.readUInt32BE(0) === 0x1a45dfa3)
    return { ext: "webm", mimeType: "audio/webm", label: "WebM" };
  if (startsWith(data, "#!AMR")) return { ext: undefined, mimeType: "audio/amr", label: "AMR" };
  return { ext: undefined, mimeType: "application/octet-stream", label: "this" };
}

/** Seconds of audio the header says, or undefined when the container is not one read here. */
export function headerSeconds(data: Buffer): number | undefined {
  if (data.length < 12) return undefined;
  if (startsWith(data, "OggS")) return oggSeconds(data);
  if (startsWith(data, "RIFF") && startsWith(data, "WAVE", 8)) return wavSeconds(data);
  return undefined;
}

/** The last page's granule position over the stream's rate (Opus: 48 kHz less the pre-skip). */
function oggSeconds(data: Buffer): number | undefined {
  // The first page's packet is the codec's identification header.
  const segments = data[26] ?? 0;
  const packet = data.subarray(27 + segments);
  let rate: number;
  let preSkip = 0;
  if (startsWith(packet, "OpusHead") && packet.length >= 12) {
    rate = 48_000;
    preSkip = packet.readUInt16LE(10);
  } else if (startsWith(packet, "\x01vorbis") && packet.length >= 16) {
    rate = packet.readUInt32LE(12);
  } else return undefined;
  if (rate <= 0) return undefined;
  for (let at = data.lastIndexOf("OggS"); at >= 0; at = data.lastIndexOf("OggS", at - 1)) {
    if (at + 14 > data.length) continue;
    const granule = data.readBigInt64LE(at + 6);
    if (granule >= 0n) return Math.max(0, Number(granule) - preSkip) / rate;
  }
  return undefined;
}

/** The data chunk's length over the byte rate; a streamed WAV's unknown length is what is there. */
function wavSeconds(data: Buffer): number | undefined {
  let byteRate: number | undefined;
  for (let at = 12; at + 8 <= data.length; ) {
    const id = data.subarray(at, at + 4).toString("latin1");
    const size = data.readUInt32LE(at + 4);
    if (id === "fmt " && at + 16 <= data.length) byteRate = data.readUInt32LE(at + 16);
    if (id === "data") {
      if (!byteRate) return undefined;
      return Math.min(size, data.length - at - 8) / byteRate;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}
