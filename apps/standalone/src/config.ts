import { randomBytes } from "node:crypto";
import { defaultNodeId, HostConfigFields } from "@phonework/host";
import { RouterConfigFields, routerConfigChecks } from "@phonework/router";
import { isLoopbackHost, port } from "@phonework/runtime";
import { z } from "zod";

// Standalone = router + host in one process on loopback. Nothing is required: the secret is
// random and the port is picked by the OS unless ROUTER_SECRET / ROUTER_PORT are given,
// in which case more hosts can join this router.
// The in-process host is admitted by that secret (loopback only) and serves every allowed user.
export const StandaloneConfigSchema = RouterConfigFields.extend(
  HostConfigFields.omit({
    ROUTER_URL: true,
    ROUTER_SECRET: true,
    JOIN_CODE: true,
    ALLOW_INSECURE_TRANSPORT: true,
    ROUTER_CA_FILE: true,
    ROUTER_CERT_SHA256: true,
  }).shape,
)
  .extend({
    ROUTER_SECRET: z
      .string()
      .min(1)
      .default(() => randomBytes(24).toString("hex")),
    // Bound elsewhere, the router would refuse the secret and its own host would never join.
    ROUTER_HOST: z
      .string()
      .min(1)
      .refine(isLoopbackHost, {
        error:
          "must be a loopback address (127.0.0.1, ::1, localhost): the standalone's own host joins by a secret " +
          "accepted only there. To take webhooks from outside, forward them to it (a reverse proxy or a tunnel " +
          "to ROUTER_PORT), or run phonework router and phonework host",
      })
      .default("127.0.0.1"),
    ROUTER_PORT: port(0),
  })
  .superRefine(routerConfigChecks, { when: () => true })
  .transform((config) => ({
    ...config,
    NODE_ID: config.NODE_ID ?? defaultNodeId(),
    nodeIdExplicit: config.NODE_ID !== undefined,
    ALLOW_INSECURE_TRANSPORT: false,
  }));

export type StandaloneConfig = z.output<typeof StandaloneConfigSchema>;
