import type { AppName } from "../cli.ts";

// PLACEHOLDER — being written; replaced before commit.
export async function runService(_options: {
  action: "install" | "uninstall" | "status";
  app: AppName;
  configPath: string | undefined;
  system: boolean;
  printOnly: boolean;
  env: NodeJS.ProcessEnv;
  out: NodeJS.WritableStream;
}): Promise<number> {
  throw new Error("service: not built yet");
}
