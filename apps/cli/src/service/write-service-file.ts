import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { ServiceError } from "./service-error.ts";

// Writing and removing the unit or plist; a refusal is one sentence naming the file.

export function writeServiceFile(path: string, text: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { mode: 0o644 });
  } catch (error) {
    throw fileError("write", path, error);
  }
}

export function removeServiceFile(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch (error) {
    throw fileError("remove", path, error);
  }
}

function fileError(verb: string, path: string, error: unknown): ServiceError {
  return new ServiceError(
    `cannot ${verb} ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
  );
}
