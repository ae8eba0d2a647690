import { z } from "zod";
import { badRequest } from "../api/errors.ts";
import { inputFile, parseParams } from "../api/params.ts";
import { UploadedFile } from "../api/request.ts";
import { mimeTypeFor, type StoredFile } from "../state/files.ts";
import type { TelegramState } from "../state/state.ts";
import type { MethodHandler } from "./method.ts";
import { captionFields, captionOptions, postFromBot, sendOptions } from "./outgoing.ts";

// sendDocument, sendPhoto and sendVoice (a multipart upload, or the file_id of a file the fake already holds;
// the fake cannot fetch HTTP URLs) and getFile. Uploads keep their bytes for the test to read.
// Simplified: a photo is stored as sent, in one size, with no dimensions (width and height 0).

const documentParams = z.object({ ...sendOptions, ...captionOptions, document: inputFile });
const photoParams = z.object({ ...sendOptions, ...captionOptions, photo: inputFile });
const voiceParams = z.object({ ...sendOptions, ...captionOptions, voice: inputFile });
const getFileParams = z.object({ file_id: z.string().min(1) });

function stored(
  state: TelegramState,
  input: UploadedFile | string,
  kind: "documents" | "photos" | "voice",
): StoredFile {
  if (input instanceof UploadedFile) {
    if (!input.data.length) throw badRequest("file must be non-empty");
    return state.files.put(
      kind,
      input.data,
      input.filename,
      kind === "documents" ? mimeTypeFor(input.filename) : undefined,
    );
  }
  const existing = state.files.get(input);
  if (!existing) throw badRequest("wrong file identifier/HTTP URL specified");
  return existing;
}

/** The ids and size every file object in a message or a getFile answer carries. */
const fileIds = (file: { file_id: string; file_unique_id: string; file_size?: number }) => ({
  file_id: file.file_id,
  file_unique_id: file.file_unique_id,
  file_size: file.file_size,
});

const sendDocument: MethodHandler = (state, raw) => {
  const params = parseParams(documentParams, raw);
  const file = stored(state, params.document, "documents");
  const message = postFromBot(state, params, {
    document: {
      ...fileIds(file),
      ...(file.file_name !== undefined ? { file_name: file.file_name } : {}),
      ...(file.mime_type !== undefined ? { mime_type: file.mime_type } : {}),
    },
    ...captionFields(params),
  });
  state.sentFiles.push({
    method: "sendDocument",
    chat_id: message.chat.id,
    message_id: message.message_id,
    file_id: file.file_id,
    filename: file.file_name,
    data: file.data,
    caption: message.caption,
  });
  return message;
};

const sendPhoto: MethodHandler = (state, raw) => {
  const params = parseParams(photoParams, raw);
  const file = stored(state, params.photo, "photos");
  const size = {
    ...fileIds(file),
    width: 0,
    height: 0,
  };
  const message = postFromBot(state, params, { photo: [size], ...captionFields(params) });
  state.sentFiles.push({
    method: "sendPhoto",
    chat_id: message.chat.id,
    message_id: message.message_id,
    file_id: file.file_id,
    filename: params.photo instanceof UploadedFile ? params.photo.filename : undefined,
    data: file.data,
    caption: message.caption,
  });
  return message;
};

const sendVoice: MethodHandler = (state, raw) => {
  const params = parseParams(voiceParams, raw);
  const file = stored(state, params.voice, "voice");
  const message = postFromBot(state, params, {
    voice: {
      ...fileIds(file),
      duration: 0,
      mime_type: "audio/ogg",
    },
    ...captionFields(params),
  });
  state.sentFiles.push({
    method: "sendVoice",
    chat_id: message.chat.id,
    message_id: message.message_id,
    file_id: file.file_id,
    filename: params.voice instanceof UploadedFile ? params.voice.filename : undefined,
    data: file.data,
    caption: message.caption,
  });
  return message;
};

const getFile: MethodHandler = (state, raw) => {
  const params = parseParams(getFileParams, raw);
  const file = state.files.get(params.file_id);
  if (!file) throw badRequest("invalid file_id");
  return {
    ...fileIds(file),
    file_path: file.file_path,
  };
};

export const fileMethods = { sendDocument, sendPhoto, sendVoice, getFile };
