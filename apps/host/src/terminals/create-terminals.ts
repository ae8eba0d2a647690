import { type HostFrame, type RouterTerminalFrame, TERMINAL_CAPABILITY } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { FeatureHost, HostFeature } from "../contracts/host-feature.ts";
import type { LinkState } from "../link/router-link.ts";
import type { ShellSandbox } from "../sandbox/shell-sandbox.ts";
import { ChatTerminals, type ChatTerminalWaits } from "./chat-terminals.ts";
import { LinkTerminals } from "./link-terminals.ts";
import { type LoadPty, loadNodePty } from "./pty-module.ts";
import { terminalCommands } from "./terminal-commands.ts";
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
  /** The router link: frames are sent now (not through the outbox), held back while its socket is behind. */
  link: {
    send(frame: HostFrame): boolean;
    bufferedAmount(): number;
    onStateChange(listener: (state: LinkState) => void): () => void;
  };
  servesUser: (userId: string) => boolean;
  /** Where a terminal's program is started: inside the sandbox when it is on, like every user command. */
  sandbox: ShellSandbox;
  loadPty?: LoadPty | undefined;
  /** How long /term and /keys wait for the screen; the defaults otherwise. */
  chatWaits?: ChatTerminalWaits | undefined;
  logger: Logger;
}

export interface Terminals extends HostFeature<RouterTerminalFrame["type"]> {
  readonly manager: TerminalManager;
  readonly chat: ChatTerminals;
  readonly link: LinkTerminals;
  /** The capabilities terminals add to a registration: `terminal` once node-pty has loaded. */
  capabilities(): string[];
  /** Loads node-pty; once it has, the router hears of the `terminal` capability. */
  start(host: FeatureHost): void;
  stop(): Promise<void>;
}

export function createTerminals(deps: TerminalsDeps): Terminals {
  const { config, logger, sandbox } = deps;
  const wrap: TerminalWrap = (file, args, owner) => {
    const [wrapped = file, ...rest] = sandbox.forTerminal(owner)([file, ...args], config.WORKING_DIR);
    return { file: wrapped, args: rest };
  };
  const idleMs = config.TERMINAL_IDLE_S * 1000;
  const manager = new TerminalManager({
    loadPty: deps.loadPty ?? loadNodePty,
    workingDir: config.WORKING_DIR,
    env: deps.env,
    secretValues: configSecrets(config),
    limits: { maxTerminals: config.MAX_TERMINALS, idleMs, bufferBytes: config.TERMINAL_BUFFER_BYTES },
    wrap,
    logger: logger.child({ component: "terminals" }),
  });
  const chat = new ChatTerminals({ manager, idleMs, logger, ...deps.chatWaits });
  const link = new LinkTerminals({
    manager,
    send: (frame) => deps.link.send(frame),
    backlog: () => deps.link.bufferedAmount(),
    servesUser: deps.servesUser,
    windowBytes: config.TERMINAL_BUFFER_BYTES,
    logger,
  });
  const handle = (frame: RouterTerminalFrame) => link.handle(frame);
  return {
    name: "terminals",
    manager,
    chat,
    link,
    commands: terminalCommands(chat),
    frames: {
      terminal_open: handle,
      terminal_input: handle,
      terminal_resize: handle,
      terminal_close: handle,
      terminal_ack: handle,
    },
    capabilities: () => (manager.available?.ok ? [TERMINAL_CAPABILITY] : []),
    start(host) {
      // A console's terminals end with the link: nobody is left to see them.
      deps.link.onStateChange((state) => state === "waiting" && link.disconnected());
      void manager.availability().then((availability) => availability.ok && host.capabilitiesChanged());
    },
    async stop() {
      await link.close();
      await chat.closeAll();
      await manager.closeAll();
    },
  };
}
