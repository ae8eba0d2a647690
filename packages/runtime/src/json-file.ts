import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictMode } from "./private-files.ts";

// Small JSON state files: read back through a schema, written atomically (temp file + rename)
// so a crash mid-write never leaves a half-written file behind.

export class StateFileError extends Error {
  override readonly name = "StateFileError";
}

export function readJsonFile<S extends z.ZodType>(path: string, schema: S, fallback: z.infer<S>): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw new StateFileError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new StateFileError(`${path} is not valid JSON; move it aside to start fresh`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new StateFileError(
      `${path} has an unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

export function writeJsonFileAtomic(path: string, data: unknown): void {
  ensurePrivateDir(dirname(path));
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  // The renamed file keeps the temp file's mode; a temp file left by a crash keeps its old one.
  restrictMode(temp, PRIVATE_FILE_MODE);
  renameSync(temp, path);
}
