export * from "./fake-node.ts";
export * from "./fake-router.ts";
export * from "./frame-inbox.ts";
export * from "./spawn-process.ts";
export * from "./tcp-proxy.ts";
export * from "./temp-dir.ts";
export * from "./test-logger.ts";
export * from "./wait-for.ts";
