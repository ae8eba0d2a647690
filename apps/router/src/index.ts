export type { ChatAddress, IncomingMessage, SentMessage } from "./chat/chat-types.ts";
export { type AdapterConfig, type AdapterSpec, adapterSpecs } from "./config/adapter-specs.ts";
export { createMemoryChatAdapter, type MemoryChatAdapter } from "./platforms/memory/memory-adapter.ts";

/**
 * The platforms' clients as the adapters make them, each loading its SDK on first use:
 * `phonework doctor` checks credentials through these, so it cannot pass where the router fails.
 */
export const loadTelegramApi = () => import("./platforms/telegram/telegram-api.ts");
export const loadLarkClient = () => import("./platforms/feishu/lark-client.ts");
export const loadSlackApi = () => import("./platforms/slack/slack-api.ts");
export {
  type RouterConfig,
  RouterConfigFields,
  RouterConfigSchema,
  routerConfigChecks,
} from "./config/router-config.ts";
export { type ChatChoice, chooseChat, selectChatAdapters } from "./config/select-adapters.ts";
export { createRouter, type Router, type RouterDeps } from "./create-router.ts";
export { openRouterDatabase, routerDatabasePath } from "./database/router-db.ts";
export { TERMINAL_PLATFORM } from "./ids/qualified-id.ts";
export {
  type Ed25519Backend,
  ed25519Backend,
  type NodeKey,
  verifyEd25519,
} from "./pairing/ed25519-verify.ts";
export type {
  Capabilities,
  ChannelMessage,
  OutgoingFile,
  PlatformAdapter,
  PlatformEvents,
} from "./platforms/platform-adapter.ts";
export { PlatformError } from "./platforms/platform-adapter.ts";
export { createTerminalAdapter } from "./platforms/stdin/stdin-adapter.ts";
export { listenFailure } from "./program/listen-failure.ts";
export { runPair } from "./program/pair-program.ts";
export { runRouter } from "./router-program.ts";
export { UserStateStore } from "./users/user-state-store.ts";
