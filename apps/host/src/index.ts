export { defaultNodeId, type HostConfig, HostConfigFields, HostConfigSchema } from "./config.ts";
export { createHost, type Host, type HostDeps } from "./create-host.ts";
export type { MessageHandler, RequestContext } from "./handler/message-handler.ts";
