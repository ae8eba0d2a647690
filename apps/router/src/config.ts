import { homedir } from "node:os";
import { join } from "node:path";
import { logLevel, nonEmpty, openAiFields, port, positiveInt, seconds, stringList } from "@phonework/runtime";
import { z } from "zod";

export const RouterConfigSchema = z.object({
  ROUTER_SECRET: nonEmpty("the shared secret hosts present as 'Authorization: Bearer <secret>'"),
  ROUTER_HOST: z.string().min(1).default("0.0.0.0"),
  ROUTER_PORT: port(8000),
  DATA_DIR: z.string().min(1).default(join(homedir(), ".phonework")),
  HEARTBEAT_INTERVAL_S: seconds(30),
  HEARTBEAT_TIMEOUT_S: seconds(10),
  /** How long a forwarded message may take before the user is told it timed out. */
  REQUEST_TIMEOUT_S: seconds(600),
  /** How long a host has to send `register` after connecting. */
  HANDSHAKE_TIMEOUT_S: seconds(10),
  /** Largest frame either side may send; bigger frames close the socket with 1009. */
  MAX_PAYLOAD_BYTES: positiveInt(16 * 1024 * 1024),
  /** Requests waiting on one node before new ones get QUEUE_FULL at once. */
  MAX_NODE_PENDING: positiveInt(100),
  /** A node socket with more than this many bytes unsent for SLOW_SOCKET_S is cut off. */
  SLOW_SOCKET_BYTES: positiveInt(8 * 1024 * 1024),
  SLOW_SOCKET_S: seconds(15),
  /** Node handshakes accepted per second; past it, 503 + Retry-After (reconnect storms). */
  MAX_HANDSHAKES_PER_S: positiveInt(2000),
  /** Minimum seconds between two edits of a progress message. */
  PROGRESS_INTERVAL_S: z.coerce.number().nonnegative().default(5),
  LOG_LEVEL: logLevel(),

  // Feishu (Lark). With no FEISHU_APP_ID the router chats on its terminal.
  FEISHU_APP_ID: z.string().min(1).optional(),
  FEISHU_APP_SECRET: z.string().min(1).optional(),
  /** "feishu", "lark", or a base URL (a proxy). */
  FEISHU_DOMAIN: z
    .string()
    .regex(/^(feishu|lark|https?:\/\/.+)$/, "must be feishu, lark, or an http(s) base URL")
    .default("feishu"),
  /** ws: the SDK's long connection (no public URL needed); webhook: POST /webhook/feishu. */
  FEISHU_MODE: z.enum(["ws", "webhook"], { error: "must be ws or webhook" }).default("ws"),
  FEISHU_ENCRYPT_KEY: z.string().min(1).optional(),
  FEISHU_VERIFICATION_TOKEN: z.string().min(1).optional(),
  /** Chat user ids (Feishu open_ids) allowed to use the bot; "*" opens it to everyone. */
  ALLOWED_USERS: stringList(),
  /** How long redelivered events are recognised (at least 12 h). */
  SEEN_EVENTS_TTL_S: z.coerce.number().min(43_200, "must be at least 43200 (12 h)").default(86_400),
  /** How long delivered push ids are remembered, so a host's resend is not shown twice. */
  DELIVERED_TTL_S: seconds(7 * 86_400),

  // The routing LLM picks a node when the cheap rules cannot. Each ROUTER_LLM_* key defaults to its
  // OPENAI_* twin, so a router that shares the hosts' provider needs only OPENAI_API_KEY.
  ...openAiFields,
  ROUTER_LLM_BASE_URL: openAiFields.OPENAI_BASE_URL,
  ROUTER_LLM_API_KEY: openAiFields.OPENAI_API_KEY,
  ROUTER_LLM_MODEL: z.string().min(1).optional(),
  /** A routing call slower than this falls back to the active node. */
  ROUTER_LLM_TIMEOUT_S: seconds(10),
});

export interface RoutingLlmSettings {
  baseURL: string | undefined;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/** The routing LLM's endpoint, or undefined when no key is configured (routing then needs no model). */
export function routingLlmSettings(config: RouterConfig): RoutingLlmSettings | undefined {
  const apiKey = config.ROUTER_LLM_API_KEY ?? config.OPENAI_API_KEY;
  if (!apiKey) return undefined;
  return {
    baseURL: config.ROUTER_LLM_BASE_URL ?? config.OPENAI_BASE_URL,
    apiKey,
    model: config.ROUTER_LLM_MODEL ?? config.OPENAI_MODEL,
    timeoutMs: config.ROUTER_LLM_TIMEOUT_S * 1000,
  };
}

export type RouterConfig = z.infer<typeof RouterConfigSchema>;
