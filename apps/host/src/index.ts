export {
  defaultNodeId,
  ensureWorkingDir,
  type HostConfig,
  HostConfigFields,
  HostConfigSchema,
} from "./config/host-config.ts";
export type { MessageHandler, RequestContext } from "./contracts/message-handler.ts";
export type { Reply, ReplyValue } from "./contracts/reply.ts";
export { createHost, type Host, type HostDeps } from "./create-host.ts";
export { runHost } from "./host-program.ts";
export { identityPath, loadIdentity, type NodeIdentity, newIdentity } from "./identity/node-identity.ts";
export { resolveIdentity } from "./identity/resolve-identity.ts";
export { peerFingerprint } from "./link/cert-pin.ts";
export { type ProbeOutcome, probeRouter } from "./link/probe-router.ts";
export type { RouterTls } from "./link/router-link.ts";
export { routerTlsFromConfig } from "./link/router-tls-config.ts";
export { createOpenAIModelClient, describeProviderError, type ModelClient } from "./model/model-client.ts";
export { findExecutable } from "./os/find-executable.ts";
export { probeSandbox, type SandboxProbe } from "./sandbox/probe-sandbox.ts";
