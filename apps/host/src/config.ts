import { statSync } from "node:fs";
import { homedir, hostname } from "node:os";
import { join, resolve } from "node:path";
import { logLevel, nonEmpty, positiveInt, seconds, stringList } from "@phonework/runtime";
import { z } from "zod";

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The machine's name, reduced to the characters a node id may hold. */
export const defaultNodeId = () =>
  hostname()
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(0, 64) || "host";

/** The host's keys; `HostConfigSchema` adds the derived defaults. */
export const HostConfigFields = z.object({
  ROUTER_URL: z
    .string()
    .regex(/^wss?:\/\//, "must be a ws:// or wss:// URL, e.g. wss://router.example.com/ws/node")
    .default("ws://127.0.0.1:8000/ws/node"),
  ROUTER_SECRET: nonEmpty("the router's shared secret"),
  NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "may only contain letters, digits, '.', '_' and '-' (at most 64)")
    .default(defaultNodeId),
  DISPLAY_NAME: z.string().min(1).optional(),
  /** Users this host serves; empty serves every user the router lets in. */
  SERVES_USERS: stringList(),
  WORKING_DIR: z
    .string()
    .default(() => process.cwd())
    .transform((path) => resolve(path))
    .refine(isDirectory, "must be an existing directory"),
  DATA_DIR: z.string().min(1).default(join(homedir(), ".phonework")),
  RECONNECT_MAX_DELAY_S: seconds(30),
  MAX_PAYLOAD_BYTES: positiveInt(16 * 1024 * 1024),
  LOG_LEVEL: logLevel(),
});

export const HostConfigSchema = HostConfigFields.transform((config) => ({
  ...config,
  DISPLAY_NAME: config.DISPLAY_NAME ?? config.NODE_ID,
}));

export type HostConfig = z.output<typeof HostConfigSchema>;
