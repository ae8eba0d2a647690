import type { HostFrame } from "@phonework/protocol";
import type { FeatureHost, HostFeature } from "./contracts/host-feature.ts";
import type { OutboxItem } from "./delivery/outbox.ts";
import type { HostBase } from "./host-base.ts";
import type { LinkService } from "./link/router-link.ts";

// A host's lifecycle, as fastify runs plugins': features start in the order they were installed,
// then the link dials the router; on stop, features stop in reverse, then the link, the outbox
// and the database close.

export interface HostLifecycle {
  start(): void;
  /** Resolves once registered with the router (the first time, or again after a reconnect). */
  ready(): Promise<void>;
  /** Pushes a frame to the router: items go through the durable outbox; a sessions_update is sent live. */
  push(frame: OutboxItem | Extract<HostFrame, { type: "sessions_update" }>): void;
  stop(): Promise<void>;
}

export function hostLifecycle(
  base: HostBase,
  features: readonly HostFeature[],
  service: LinkService,
): HostLifecycle {
  const { link, outbox } = base;
  const host: FeatureHost = {
    capabilitiesChanged: () =>
      void link.registered().then(() => {
        const { sessions, capabilities } = service.registration();
        link.send({ type: "sessions_update", sessions, capabilities });
      }),
  };
  return {
    start() {
      for (const feature of features) feature.start?.(host);
      link.start(service);
    },
    ready: async () => {
      await link.registered();
    },
    push: (frame) => (frame.type === "sessions_update" ? link.send(frame) : outbox.enqueue(frame)),
    async stop() {
      for (const feature of [...features].reverse()) await feature.stop?.();
      await link.stop();
      outbox.close();
      await base.checkpoints.stop();
      base.db.close();
    },
  };
}
