import type { Logger } from "@phonework/runtime";
import { SocketModeClient } from "@slack/socket-mode";
import type { DeliveryHandler, DeliveryKind } from "./delivery-handler.ts";
import { slackApiUrl, slackLogger } from "./slack-api.ts";
import { slackCall } from "./slack-error.ts";

// Socket Mode: the app token opens a WebSocket (apps.connections.open) on which Slack sends
// envelopes; no public URL needed. An envelope is acknowledged only once the shared layer stored
// what it carries: left unacknowledged, Slack sends it again (retry_attempt + 1, the same event_id,
// which the intake recognises). The SDK reconnects by itself when Slack recycles the socket.

export interface SocketModeOptions {
  appToken: string;
  apiUrl?: string;
  /** The handler while the adapter receives; undefined after stop. */
  handler(): DeliveryHandler | undefined;
  logger: Logger;
}

export interface SocketMode {
  readonly state: string;
  stop(): Promise<void>;
}

const KINDS = new Set<string>(["events_api", "slash_commands", "interactive"]);

interface SlackEnvelope {
  ack(response?: Record<string, unknown>): Promise<void>;
  type: string;
  body: unknown;
  retry_num?: number;
}

export async function startSocketMode(options: SocketModeOptions): Promise<SocketMode> {
  const { logger } = options;
  const client = new SocketModeClient({
    appToken: options.appToken,
    logger: slackLogger(logger),
    clientOptions: { slackApiUrl: slackApiUrl(options.apiUrl) },
  });
  let state = "connecting";
  for (const next of ["connected", "reconnecting", "disconnected"]) client.on(next, () => (state = next));
  client.on("reconnecting", () => logger.info("Slack socket reconnecting"));

  client.on("slack_event", (envelope: SlackEnvelope) => {
    const handle = options.handler();
    if (!handle || !KINDS.has(envelope.type)) return;
    const handled = handle(envelope.type as DeliveryKind, envelope.body);
    handled.stored.then(
      async () => {
        try {
          await envelope.ack();
        } catch (error) {
          logger.warn({ err: String(error) }, "Slack envelope not acknowledged; Slack will send it again");
          return;
        }
        await handled.later?.();
      },
      (error: unknown) =>
        logger.warn(
          { err: error instanceof Error ? error.message : String(error), retry: envelope.retry_num ?? 0 },
          "Slack event not stored; left unacknowledged so Slack sends it again",
        ),
    );
  });

  // A refused app token fails here at once (invalid_auth), naming what to fix.
  await slackCall("apps.connections.open with the app-level token", () => client.start());
  logger.info("Slack socket connected");
  return {
    get state() {
      return state;
    },
    async stop() {
      await client.disconnect();
    },
  };
}
