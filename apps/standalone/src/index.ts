export { type StandaloneConfig, StandaloneConfigSchema } from "./config.ts";
export { startStandalone } from "./standalone.ts";
export { runStandalone } from "./standalone-program.ts";
