import { CURRENT_PROTOCOL_VERSION, type HostFrame, type SessionSummary } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "./config.ts";
import type { MessageHandler } from "./handler/message-handler.ts";
import { createNoAssistantHandler } from "./handler/no-assistant-handler.ts";
import { RequestRunner } from "./link/request-runner.ts";
import { RouterLink } from "./link/router-link.ts";

// Composition root of a host: the link to the router and what answers messages.

export interface HostDeps {
  logger: Logger;
  handler?: MessageHandler;
  capabilities?: string[];
  sessions?: () => SessionSummary[];
  random?: () => number;
}

export interface Host {
  readonly link: RouterLink;
  start(): void;
  /** Resolves once registered with the router (the first time, or again after a reconnect). */
  ready(): Promise<void>;
  /** Pushes a frame (notification, task completion) to the router; false if the link is down. */
  push(frame: Extract<HostFrame, { type: "notify" | "task_complete" | "sessions_update" }>): boolean;
  stop(): Promise<void>;
}

export function createHost(config: HostConfig, deps: HostDeps): Host {
  const logger = deps.logger.child({ component: "host", nodeId: config.NODE_ID });
  const handler = deps.handler ?? createNoAssistantHandler(config.NODE_ID);
  let runner: RequestRunner | undefined;

  const link = new RouterLink({
    url: config.ROUTER_URL,
    secret: config.ROUTER_SECRET,
    registration: () => ({
      type: "register",
      node_id: config.NODE_ID,
      display_name: config.DISPLAY_NAME,
      serves_users: config.SERVES_USERS,
      working_dir: config.WORKING_DIR,
      capabilities: deps.capabilities ?? [],
      protocol_versions: [CURRENT_PROTOCOL_VERSION],
      sessions: deps.sessions?.() ?? [],
    }),
    maxPayloadBytes: config.MAX_PAYLOAD_BYTES,
    backoff: { baseMs: 500, maxMs: config.RECONNECT_MAX_DELAY_S * 1000 },
    logger: logger.child({ component: "link" }),
    onWork: (frame) => {
      if (frame.type === "forward") runner?.run(frame);
      else runner?.cancel(frame.id, frame.reason);
    },
    ...(deps.random ? { random: deps.random } : {}),
  });
  runner = new RequestRunner(handler, (frame) => link.send(frame), logger);

  return {
    link,
    start: () => link.start(),
    ready: async () => {
      await link.registered();
    },
    push: (frame) => link.send(frame),
    async stop() {
      runner?.cancelAll("host stopping");
      await link.stop();
    },
  };
}
