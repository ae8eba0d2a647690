import { useEffect, useRef, useState } from "preact/hooks";

// The chat's record button: a voice note recorded with MediaRecorder (Opus at 16 kbit/s, stopped
// at 90 s so it fits one page frame) and handed to `send`; the router transcribes it like a voice
// note from any chat app. Hidden where the browser cannot record (no microphone API, or not a
// secure context).

const MAX_MS = 90_000;
const TYPES = ["audio/ogg;codecs=opus", "audio/webm;codecs=opus", "audio/mp4"];

export interface RecordButtonProps {
  send: (audio: Blob) => void;
  fail: (text: string) => void;
}

const canRecord = () =>
  typeof MediaRecorder !== "undefined" && typeof navigator.mediaDevices?.getUserMedia === "function";

export function RecordButton(props: RecordButtonProps) {
  const [recording, setRecording] = useState<MediaRecorder | undefined>();
  const stopTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(stopTimer.current), []);
  if (!canRecord()) return null;

  const start = async () => {
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      props.fail("The microphone is not available to this page.");
      return;
    }
    const mimeType = TYPES.find((type) => MediaRecorder.isTypeSupported(type));
    const recorder = new MediaRecorder(stream, {
      ...(mimeType ? { mimeType } : {}),
      audioBitsPerSecond: 16_000,
    });
    const chunks: Blob[] = [];
    recorder.ondataavailable = (event) => chunks.push(event.data);
    recorder.onstop = () => {
      clearTimeout(stopTimer.current);
      for (const track of stream.getTracks()) track.stop();
      setRecording(undefined);
      props.send(new Blob(chunks, { type: recorder.mimeType || mimeType || "audio/webm" }));
    };
    recorder.start();
    stopTimer.current = setTimeout(() => recorder.state === "recording" && recorder.stop(), MAX_MS);
    setRecording(recorder);
  };

  return recording ? (
    <button
      type="button"
      class="record recording"
      aria-label="Stop and send"
      onClick={() => recording.stop()}
    >
      ■
    </button>
  ) : (
    <button type="button" class="record" aria-label="Record a voice note" onClick={() => void start()}>
      🎤
    </button>
  );
}

/** The recording as base64, the way the page frame carries it. */
export async function base64Of(audio: Blob): Promise<string> {
  const bytes = new Uint8Array(await audio.arrayBuffer());
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}
