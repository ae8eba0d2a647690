import type { REST } from "@discordjs/rest";
import { type SessionInfo, WebSocketManager, WebSocketShardEvents } from "@discordjs/ws";
import type { Logger } from "@phonework/runtime";
import { PlatformError } from "../platform-adapter.ts";
import { readySchema } from "./gateway-schema.ts";

// The gateway connection, through @discordjs/ws: it reads the address from GET /gateway/bot (so
// DISCORD_API_URL moves the gateway too), identifies, heartbeats, and after a dropped connection
// RESUMEs, and the gateway replays what was missed. Each adapter keeps its own session (the
// library's default store is one per process). Every dispatch is handed on in order, one at a time.

/** Guilds, GuildMessages, DirectMessages, MessageContent (privileged: enabled in the portal). */
export const INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);

/** Close codes after which the library gives up: the configuration is wrong, not the network. */
const FATAL_CLOSES: Record<number, string> = {
  4004: "the bot token was refused (DISCORD_BOT_TOKEN)",
  4013: "invalid gateway intents",
  4014: "the Message Content intent is not enabled: turn it on in the Discord developer portal (Bot → Privileged Gateway Intents)",
};

export interface Gateway {
  readonly botId: string;
  readonly applicationId: string;
  status(): { connected: boolean; resumes: number; lastClose: number | null; latencyMs: number | null };
  stop(): Promise<void>;
}

export interface GatewayOptions {
  token: string;
  rest: REST;
  logger: Logger;
  /** One dispatch (event name and data); the next waits until it settles. */
  onDispatch(event: string, data: unknown): Promise<void>;
  /** How long the first READY may take (default 30 s). */
  readyTimeoutMs?: number;
}

export async function connectGateway(options: GatewayOptions): Promise<Gateway> {
  const { logger } = options;
  let session: SessionInfo | null = null;
  const manager = new WebSocketManager({
    token: options.token,
    intents: INTENTS,
    rest: options.rest,
    shardCount: 1,
    retrieveSessionInfo: () => session,
    updateSessionInfo: (_shard, info) => {
      session = info;
    },
  });
  let connected = false;
  let resumes = 0;
  let lastClose: number | null = null;
  let latencyMs: number | null = null;
  let queue = Promise.resolve();
  let fatal: ((error: Error) => void) | undefined;

  manager.on(WebSocketShardEvents.Dispatch, (payload) => {
    queue = queue.then(() =>
      options.onDispatch(payload.t, payload.d).catch((error: unknown) => {
        logger.error({ err: error, event: payload.t }, "Discord dispatch not handled");
      }),
    );
  });
  manager.on(WebSocketShardEvents.Ready, () => {
    connected = true;
  });
  manager.on(WebSocketShardEvents.Resumed, () => {
    connected = true;
    resumes += 1;
    logger.info({ resumes }, "Discord gateway resumed");
  });
  manager.on(WebSocketShardEvents.Closed, (code) => {
    connected = false;
    lastClose = code;
    const reason = FATAL_CLOSES[code];
    if (reason) {
      logger.error({ code }, `Discord gateway closed: ${reason}`);
      fatal?.(new PlatformError("permanent", `Discord gateway closed (${code}): ${reason}`, { code }));
    } else logger.info({ code }, "Discord gateway connection closed; reconnecting");
  });
  manager.on(WebSocketShardEvents.HeartbeatComplete, (stats) => {
    latencyMs = stats.latency;
  });
  manager.on(WebSocketShardEvents.Error, (error) =>
    logger.warn({ error: error.message }, "Discord gateway error"),
  );

  const ready = new Promise<unknown>((resolve) =>
    manager.once(WebSocketShardEvents.Ready, (data) => resolve(data)),
  );
  const failed = new Promise<never>((_, reject) => {
    fatal = reject;
    const timer = setTimeout(
      () => reject(new PlatformError("transient", "Discord gateway: no READY in time")),
      options.readyTimeoutMs ?? 30_000,
    );
    timer.unref();
    void ready.finally(() => clearTimeout(timer));
  });
  try {
    Promise.resolve(manager.connect()).catch((error: unknown) => fatal?.(error as Error));
    const data = readySchema.parse(await Promise.race([ready, failed]));
    connected = true;
    fatal = undefined;
    return {
      botId: data.user.id,
      applicationId: data.application.id,
      status: () => ({ connected, resumes, lastClose, latencyMs }),
      stop: async () => {
        await manager.destroy({ reason: "stopping" });
        await queue;
      },
    };
  } catch (error) {
    await Promise.resolve(manager.destroy({ reason: "start failed" })).catch(() => {});
    throw error;
  }
}
