export { type AppName, buildCli, type CliIo } from "./cli.ts";
export { phoneworkVersion } from "./version.ts";
