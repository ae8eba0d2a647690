export { type StandaloneConfig, StandaloneConfigSchema } from "./config.ts";
export { type Standalone, type StandaloneDeps, standaloneChat, startStandalone } from "./standalone.ts";
export { runStandalone } from "./standalone-program.ts";
