import { randomBytes } from "node:crypto";
import { HostConfigFields } from "@phonework/host";
import { RouterConfigSchema } from "@phonework/router";
import { logLevel, port } from "@phonework/runtime";
import { z } from "zod";

// Standalone = router + host in one process on loopback. Nothing is required: the secret is
// random and the port is picked by the OS unless ROUTER_SECRET / ROUTER_PORT are given,
// in which case more hosts can join this router.
export const StandaloneConfigSchema = RouterConfigSchema.extend(
  HostConfigFields.omit({ ROUTER_URL: true, ROUTER_SECRET: true }).shape,
).extend({
  ROUTER_SECRET: z
    .string()
    .min(1)
    .default(() => randomBytes(24).toString("hex")),
  ROUTER_HOST: z.string().min(1).default("127.0.0.1"),
  ROUTER_PORT: port(0),
  // The terminal is the chat here, so only warnings and errors are logged (to stderr) by default.
  LOG_LEVEL: logLevel().default("warn"),
});

export type StandaloneConfig = z.output<typeof StandaloneConfigSchema>;
