export type { ChatAddress, IncomingMessage, SentMessage } from "./chat/chat-adapter.ts";
export { type AdapterConfig, type AdapterSpec, adapterSpecs } from "./chat/config/adapter-specs.ts";
export { createMemoryChatAdapter, type MemoryChatAdapter } from "./chat/memory-adapter.ts";

/**
 * The platforms' clients as the adapters make them, each loading its SDK on first use:
 * `phonework doctor` checks credentials through these, so it cannot pass where the router fails.
 */
export const loadTelegramApi = () => import("./chat/telegram/telegram-api.ts");
export const loadLarkClient = () => import("./chat/feishu/lark-client.ts");
export type {
  Capabilities,
  ChannelMessage,
  OutgoingFile,
  PlatformAdapter,
  PlatformEvents,
} from "./chat/platform-adapter.ts";
export { PlatformError } from "./chat/platform-adapter.ts";
export { type ChatChoice, chooseChat, selectChatAdapters } from "./chat/select-adapters.ts";
export { createTerminalAdapter, TERMINAL_PLATFORM } from "./chat/terminal-adapter.ts";
export { type RouterConfig, RouterConfigFields, RouterConfigSchema, routerConfigChecks } from "./config.ts";
export { createRouter, type Router, type RouterDeps } from "./create-router.ts";
export { listenFailure } from "./listen-failure.ts";
export { runPair } from "./pair-cli.ts";
export { runRouter } from "./router-program.ts";
export { openRouterDatabase, routerDatabasePath } from "./state/router-db.ts";
export { UserStateStore } from "./state/user-state-store.ts";
