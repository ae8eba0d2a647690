export { defaultNodeId, type HostConfig, HostConfigFields, HostConfigSchema } from "./config.ts";
export { createHost, type Host, type HostDeps } from "./create-host.ts";
export type { MessageHandler, RequestContext } from "./handler/message-handler.ts";
export { runHost } from "./host-program.ts";
export { loadIdentity, type NodeIdentity, newIdentity } from "./identity/node-identity.ts";
export { resolveIdentity } from "./identity/resolve-identity.ts";
export type { RouterTls } from "./link/router-link.ts";
