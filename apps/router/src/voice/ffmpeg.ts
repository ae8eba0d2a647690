import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

// ffmpeg and ffprobe as child processes, when they are on PATH: a format the endpoint does not take
// becomes 16 kHz mono WAV (what every whisper server reads), and ffprobe reads the duration of a
// container audio-format.ts does not. The argv is fixed (no shell); the audio goes in and out
// through files in a private temp dir; a run past its time is killed.

export interface AudioTools {
  /** ffmpeg was found (conversion possible). */
  readonly canConvert: boolean;
  /** 16 kHz mono 16-bit WAV, at most `maxSeconds` long. */
  toWav(data: Buffer, maxSeconds: number): Promise<Buffer>;
  /** Seconds ffprobe reads, or undefined without ffprobe or when it cannot tell. */
  probeSeconds(data: Buffer): Promise<number | undefined>;
}

const RUN_TIMEOUT_MS = 30_000;

function onPath(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** Runs `file` with `args`; resolves its stdout, rejects on a non-zero exit or the timeout. */
function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-500);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${file} ended with ${signal ?? code}: ${stderr.trim()}`));
    });
  });
}

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "phonework-audio-"));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The tools found on PATH now (looked up once, at start). */
export function audioToolsOnPath(path?: string): AudioTools {
  const ffmpeg = onPath("ffmpeg", path);
  const ffprobe = onPath("ffprobe", path);
  return {
    canConvert: ffmpeg !== undefined,
    toWav: (data, maxSeconds) => {
      if (!ffmpeg) return Promise.reject(new Error("ffmpeg is not on PATH"));
      return inTempDir(async (dir) => {
        const input = join(dir, "in");
        const output = join(dir, "out.wav");
        await writeFile(input, data, { mode: 0o600 });
        // -nostdin: never waits on a terminal; -t bounds what a forged header would hide.
        const args = [
          "-nostdin",
          "-hide_banner",
          "-loglevel",
          "error",
          "-i",
          input,
          "-t",
          String(maxSeconds),
        ];
        await run(ffmpeg, [
          ...args,
          "-vn",
          "-ac",
          "1",
          "-ar",
          "16000",
          "-c:a",
          "pcm_s16le",
          "-f",
          "wav",
          output,
        ]);
        return readFile(output);
      });
    },
    probeSeconds: async (data) => {
      if (!ffprobe) return undefined;
      return inTempDir(async (dir) => {
        const input = join(dir, "in");
        await writeFile(input, data, { mode: 0o600 });
        const args = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", input];
        const seconds = Number.parseFloat(await run(ffprobe, args).catch(() => ""));
        return Number.isFinite(seconds) ? seconds : undefined;
      });
    },
  };
}

/** No ffmpeg, no ffprobe: what a router without them does. */
export const NO_AUDIO_TOOLS: AudioTools = {
  canConvert: false,
  toWav: () => Promise.reject(new Error("ffmpeg is not on PATH")),
  probeSeconds: async () => undefined,
};
