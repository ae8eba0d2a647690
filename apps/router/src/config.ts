import { homedir } from "node:os";
import { join } from "node:path";
import { logLevel, nonEmpty, port, positiveInt, seconds } from "@phonework/runtime";
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
  /** Minimum seconds between two edits of a progress message. */
  PROGRESS_INTERVAL_S: z.coerce.number().nonnegative().default(5),
  LOG_LEVEL: logLevel(),
});

export type RouterConfig = z.infer<typeof RouterConfigSchema>;
