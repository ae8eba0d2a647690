import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { nextReply, type ScriptedStep, waitWhileOpen } from "./scripted-replies.ts";
import { sendJson } from "./shared/http-server.ts";

// OpenAI-compatible speech endpoints: `POST /v1/audio/transcriptions` (multipart: file, model; what
// STT_BASE_URL points at) and `POST /v1/audio/speech` (JSON: model, input, voice; audio back). Tests
// script transcripts, errors and slow answers, make the endpoint refuse formats the way whisper.cpp's
// server refuses all but WAV, and read back every request (the file's bytes and name included).

/** A voice note the Telegram apps would record: 1.5 s of OGG/Opus (a tone; it has no words). */
export const VOICE_NOTE_OGG: Buffer = readFileSync(new URL("../fixtures/voice-note.ogg", import.meta.url));

export interface TranscriptionRequest {
  model: string;
  fileName: string;
  mimeType: string;
  file: Buffer;
  authorization: string | undefined;
}

export interface SpeechRequest {
  model: string;
  input: string;
  voice?: string;
  response_format?: string;
  authorization: string | undefined;
}

export type TranscriptReply =
  | { text: string }
  | { status: number; body?: unknown }
  | { delayMs: number; reply: TranscriptReply };

export type SpeechReply =
  | { audio: Buffer; contentType?: string }
  | { status: number; body?: unknown }
  | { delayMs: number; reply: SpeechReply };

export interface FakeSpeech {
  /** Base URL including /v1, as STT_BASE_URL expects. */
  url: string;
  transcriptions: TranscriptionRequest[];
  speech: SpeechRequest[];
  /** Queues transcription answers, used in order; when the queue is empty, `fallback` answers. */
  scriptTranscripts(...steps: ScriptedStep<TranscriptionRequest, TranscriptReply>[]): void;
  fallback: (request: TranscriptionRequest) => TranscriptReply;
  /** Queues speech answers; when empty, the voice-note fixture comes back. */
  scriptSpeech(...steps: ScriptedStep<SpeechRequest, SpeechReply>[]): void;
  /** File extensions taken (e.g. ["wav"], like whisper.cpp's server); others get OpenAI's 400. Default: all. */
  accepts: string[] | undefined;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readTranscription(req: IncomingMessage, body: Buffer): Promise<TranscriptionRequest | string> {
  const form = await new Request("http://fake/", {
    method: "POST",
    headers: { "content-type": req.headers["content-type"] ?? "" },
    body,
  })
    .formData()
    .catch(() => undefined);
  const file = form?.get("file");
  const model = form?.get("model");
  if (!(file instanceof File)) return "file is required";
  if (typeof model !== "string" || !model) return "model is required";
  return {
    model,
    fileName: file.name,
    mimeType: file.type,
    file: Buffer.from(await file.arrayBuffer()),
    authorization: req.headers.authorization,
  };
}

export async function startFakeSpeech(options: { apiKey?: string } = {}): Promise<FakeSpeech> {
  const transcriptQueue: ScriptedStep<TranscriptionRequest, TranscriptReply>[] = [];
  const speechQueue: ScriptedStep<SpeechRequest, SpeechReply>[] = [];
  const fake: FakeSpeech = {
    url: "",
    transcriptions: [],
    speech: [],
    scriptTranscripts: (...steps) => transcriptQueue.push(...steps),
    fallback: () => ({ text: "Hello from a voice note." }),
    scriptSpeech: (...steps) => speechQueue.push(...steps),
    accepts: undefined,
    close: async () => {},
  };

  const answer = async (res: ServerResponse, reply: TranscriptReply | SpeechReply): Promise<void> => {
    if ("delayMs" in reply) {
      if (await waitWhileOpen(res, reply.delayMs)) await answer(res, reply.reply);
    } else if ("status" in reply) {
      sendJson(res, reply.status, reply.body ?? { error: { message: `fake error ${reply.status}` } });
    } else if ("text" in reply) {
      sendJson(res, 200, { text: reply.text });
    } else {
      res.writeHead(200, { "content-type": reply.contentType ?? "audio/ogg" });
      res.end(reply.audio);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> => {
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, { error: { message: "invalid api key", type: "invalid_request_error" } });
    }
    if (req.method === "POST" && req.url === "/v1/audio/transcriptions") {
      const request = await readTranscription(req, body);
      if (typeof request === "string") return sendJson(res, 400, { error: { message: request } });
      fake.transcriptions.push(request);
      const ext = request.fileName.split(".").pop()?.toLowerCase() ?? "";
      if (fake.accepts && !fake.accepts.includes(ext))
        return sendJson(res, 400, {
          error: { message: `Invalid file format. Supported formats: ${fake.accepts.join(", ")}` },
        });
      return answer(res, await nextReply(transcriptQueue, fake.fallback, request));
    }
    if (req.method === "POST" && req.url === "/v1/audio/speech") {
      const json = JSON.parse(body.toString("utf8") || "{}") as Omit<SpeechRequest, "authorization">;
      const request = { ...json, authorization: req.headers.authorization };
      fake.speech.push(request);
      return answer(res, await nextReply(speechQueue, () => ({ audio: VOICE_NOTE_OGG }), request));
    }
    sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
  };

  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => handle(req, res, body))
      .catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
        else res.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
