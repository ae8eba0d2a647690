import { type HostFrame, TERMINAL_CAPABILITY, type TerminalRouterFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import { servesUserRule } from "../link/serves-user.ts";
import { ChatTerminals, type ChatTerminalWaits } from "./chat-terminals.ts";
import { LinkTerminals } from "./link-terminals.ts";
import { type LoadPty, loadNodePty } from "./pty-module.ts";
import { configSecrets } from "./terminal-env.ts";
import { TerminalManager, type TerminalWrap } from "./terminal-manager.ts";

// A host's terminals, wired: one manager (the limits), the chat's /term and /keys, and the
// router's terminal frames. node-pty is loaded at start; until it has, and if it cannot be, the
// `terminal` capability is not offered and opening one says why.

export interface TerminalsDeps {
  /** The whole config: its secrets' values are kept out of terminals' environments. */
  config: HostConfig;
  /** The host's environment, which terminals get without PhoneWork's secrets. */
  env: NodeJS.ProcessEnv;
  /** Sends a frame on the router link now (not through the outbox). */
  send: (frame: HostFrame) => boolean;
  /** Bytes the link's socket has not yet written. */
  backlog: () => number;
  loadPty?: LoadPty;
  /** How long /term and /keys wait for the screen; the defaults otherwise. */
  chatWaits?: ChatTerminalWaits;
  /** Where a terminal's program is started (the sandbox); as it is by default. */
  wrap?: TerminalWrap;
  logger: Logger;
}

export interface Terminals {
  readonly manager: TerminalManager;
  readonly chat: ChatTerminals;
  readonly link: LinkTerminals;
  /** The capabilities terminals add to a registration: `terminal` once node-pty has loaded. */
  capabilities(): string[];
  /** Loads node-pty; `onCapable` is called when that made terminals available. */
  start(onCapable: () => Promise<void>): void;
  stop(): Promise<void>;
}

const TERMINAL_FRAMES = new Set<string>([
  "terminal_open",
  "terminal_input",
  "terminal_resize",
  "terminal_close",
  "terminal_ack",
]);

export const isTerminalFrame = (frame: { type: string }): frame is TerminalRouterFrame =>
  TERMINAL_FRAMES.has(frame.type);

export function createTerminals(deps: TerminalsDeps): Terminals {
  const { config, logger } = deps;
  const idleMs = config.TERMINAL_IDLE_S * 1000;
  const manager = new TerminalManager({
    loadPty: deps.loadPty ?? loadNodePty,
    workingDir: config.WORKING_DIR,
    env: deps.env,
    secretValues: configSecrets(config),
    limits: { maxTerminals: config.MAX_TERMINALS, idleMs, bufferBytes: config.TERMINAL_BUFFER_BYTES },
    ...(deps.wrap ? { wrap: deps.wrap } : {}),
    logger: logger.child({ component: "terminals" }),
  });
  const chat = new ChatTerminals({ manager, idleMs, logger, ...deps.chatWaits });
  const link = new LinkTerminals({
    manager,
    send: deps.send,
    backlog: deps.backlog,
    servesUser: servesUserRule(config.SERVES_USERS),
    windowBytes: config.TERMINAL_BUFFER_BYTES,
    logger,
  });
  return {
    manager,
    chat,
    link,
    capabilities: () => (manager.available?.ok ? [TERMINAL_CAPABILITY] : []),
    start(onCapable) {
      void manager.availability().then((availability) => (availability.ok ? onCapable() : undefined));
    },
    async stop() {
      await link.close();
      await chat.closeAll();
      await manager.closeAll();
    },
  };
}
