export { buildCli, type CliIo } from "./cli.ts";
export type { AppName } from "./programs/app-name.ts";
export { phoneworkVersion } from "./version.ts";
