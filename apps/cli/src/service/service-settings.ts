import { loadConfig, type ProgramArgs } from "@phonework/runtime";
import type { AppName } from "../programs/app-name.ts";

// What a service will run with, said in plain lines after its unit: the settings as the program
// loads them under the service manager (its config file and flags; none of this shell's
// environment). A ConfigError here means the service would stop at its first start.

/** The settings `app` would start with under a service: its file and flags, no shell environment. */
export async function settingsOf(app: AppName, args: ProgramArgs): Promise<string[]> {
  const source = { env: {}, configPath: args.configPath, overrides: args.overrides ?? {} };
  if (app === "host") {
    const { HostConfigSchema } = await import("@phonework/host");
    const config = loadConfig(HostConfigSchema, source).config;
    return [
      `router: ${config.ROUTER_URL}`,
      `working folder: ${config.WORKING_DIR}`,
      `data folder: ${config.DATA_DIR}`,
    ];
  }
  if (app === "router") {
    const { RouterConfigSchema } = await import("@phonework/router");
    const config = loadConfig(RouterConfigSchema, source).config;
    return [`listens on: ${config.ROUTER_HOST}:${config.ROUTER_PORT}`, `data folder: ${config.DATA_DIR}`];
  }
  const { StandaloneConfigSchema } = await import("@phonework/standalone");
  const config = loadConfig(StandaloneConfigSchema, source).config;
  return [`working folder: ${config.WORKING_DIR}`, `data folder: ${config.DATA_DIR}`];
}
