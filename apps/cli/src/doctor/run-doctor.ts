import type { ProgramArgs } from "@phonework/runtime";
import type { AppName } from "../cli.ts";

// PLACEHOLDER — being written; replaced before commit.
export async function runDoctor(_options: {
  app: AppName;
  args: ProgramArgs;
  offline: boolean;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream;
}): Promise<number> {
  throw new Error("doctor: not built yet");
}
