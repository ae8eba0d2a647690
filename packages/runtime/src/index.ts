export * from "./clock.ts";
export * from "./config-fields.ts";
export * from "./config-loader.ts";
export * from "./json-file.ts";
export * from "./keyed-queue.ts";
export * from "./logger.ts";
export * from "./main-guard.ts";
export * from "./program.ts";
