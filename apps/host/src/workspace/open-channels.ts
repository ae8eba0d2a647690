import type { Logger, SqliteDatabase } from "@phonework/runtime";
import type { Outbox } from "../delivery/outbox.ts";
import { ChannelAccess } from "./channel-access.ts";
import { ChannelContexts } from "./channel-context.ts";
import { ChannelLog } from "./channel-log.ts";
import type { WorkspaceLayout } from "./workspace-layout.ts";

// The per-chat half of the workspace, put together: who may read which chat, each chat's log
// (fed by what the outbox accepts, so the host's own messages are logged wherever they start)
// and each chat's context.

export interface ChannelsOptions {
  layout: WorkspaceLayout;
  db: SqliteDatabase;
  outbox: Outbox;
  nodeId: string;
  displayName: string;
  /** How much of a chat's context the model sees (HISTORY_MAX_TOKENS). */
  maxTokens: number;
  modelId: string;
  /** Per-user history files from before the workspace. */
  legacyHistoryDir: string;
  /** CHANNEL_LOG_THREAD_AT: log file writes per second that start the log's thread. */
  logThreadAt?: number;
  now: () => number;
  logger: Logger;
}

export interface Channels {
  access: ChannelAccess;
  log: ChannelLog;
  contexts: ChannelContexts;
}

export function openChannels(options: ChannelsOptions): Channels {
  const { layout, now, logger } = options;
  const log = new ChannelLog({
    layout,
    nodeId: options.nodeId,
    displayName: options.displayName,
    now,
    logger: logger.child({ component: "channel-log" }),
    ...(options.logThreadAt === undefined ? {} : { threadAt: options.logThreadAt }),
  });
  options.outbox.onStored((frame, deliveryId) => log.pushed(frame, deliveryId));
  return {
    access: new ChannelAccess(options.db, layout, now),
    log,
    contexts: new ChannelContexts({
      layout,
      maxTokens: options.maxTokens,
      modelId: options.modelId,
      legacyDir: options.legacyHistoryDir,
      now,
      logger: logger.child({ component: "context" }),
    }),
  };
}
