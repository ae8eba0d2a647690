import { readFileSync, renameSync } from "node:fs";
import type { z } from "zod";
import { writePrivateFile } from "./private-files.ts";

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
  // The renamed file keeps the temp file's mode (writePrivateFile also tightens a leftover one).
  const temp = `${path}.${process.pid}.tmp`;
  writePrivateFile(temp, `${JSON.stringify(data, null, 2)}\n`);
  renameSync(temp, path);
}
