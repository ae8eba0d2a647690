export * from "./codec.ts";
export * from "./errors.ts";
export * from "./frame-families.ts";
export * from "./frames.ts";
export * from "./node-auth.ts";
export * from "./overview-frames.ts";
export * from "./terminal-frames.ts";
export * from "./version.ts";
