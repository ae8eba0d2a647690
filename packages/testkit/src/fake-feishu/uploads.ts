import type { MultipartPart } from "../shared/multipart.ts";
import { FeishuCode, feishuError, type RouteResult } from "./errors.ts";
import { hex } from "./ids.ts";

// im/v1/files and im/v1/images: multipart uploads answered with a file_key / image_key. Feishu
// refuses empty files and requires file_type/file_name (files) or image_type (images).

export interface Upload {
  kind: "file" | "image";
  key: string;
  file_name?: string;
  file_type?: string;
  image_type?: string;
  size: number;
}

const FILE_TYPES = new Set(["opus", "mp4", "pdf", "doc", "xls", "ppt", "stream"]);
const IMAGE_TYPES = new Set(["message", "avatar"]);

const invalid = (detail: string): RouteResult => ({
  error: feishuError(400, FeishuCode.fieldValidation, `field validation failed: ${detail}`),
});

const field = (parts: MultipartPart[], name: string): MultipartPart | undefined =>
  parts.find((part) => part.name === name);

export function uploadFile(parts: MultipartPart[] | undefined, uploads: Upload[]): RouteResult {
  if (!parts) return invalid("multipart/form-data body required");
  const fileType = field(parts, "file_type")?.data.toString("utf8");
  const fileName = field(parts, "file_name")?.data.toString("utf8");
  const file = field(parts, "file");
  if (!fileType || !FILE_TYPES.has(fileType)) return invalid("file_type");
  if (!fileName) return invalid("file_name");
  if (!file?.data.length) return invalid("file must not be empty");
  const key = `file_v3_00${hex(4)}_${hex(16)}g`;
  uploads.push({ kind: "file", key, file_name: fileName, file_type: fileType, size: file.data.length });
  return { data: { file_key: key } };
}

export function uploadImage(parts: MultipartPart[] | undefined, uploads: Upload[]): RouteResult {
  if (!parts) return invalid("multipart/form-data body required");
  const imageType = field(parts, "image_type")?.data.toString("utf8");
  const image = field(parts, "image");
  if (!imageType || !IMAGE_TYPES.has(imageType)) return invalid("image_type");
  if (!image?.data.length) return invalid("image must not be empty");
  const key = `img_v3_02${hex(4)}_${hex(16)}g`;
  uploads.push({
    kind: "image",
    key,
    image_type: imageType,
    ...(image.filename ? { file_name: image.filename } : {}),
    size: image.data.length,
  });
  return { data: { image_key: key } };
}
