import type { HostFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { RouterLink } from "./router-link.ts";

// Frames the host pushes on its own (task completions, files). If the router link is down
// they wait here, in order, and go out as soon as the host has registered again.
// In memory only: a durable outbox is a later step.

const MAX_HELD = 1000;

export class PushQueue {
  private readonly held: HostFrame[] = [];
  private link: RouterLink | undefined;

  constructor(private readonly logger: Logger) {}

  attach(link: RouterLink): void {
    this.link = link;
    link.onStateChange((state) => {
      if (state === "registered") this.flush();
    });
  }

  push(frame: HostFrame): void {
    if (this.held.length === 0 && this.link?.send(frame)) return;
    if (this.held.length >= MAX_HELD) {
      const dropped = this.held.shift();
      this.logger.error({ type: dropped?.type }, "push queue full; oldest frame dropped");
    }
    this.held.push(frame);
  }

  private flush(): void {
    while (this.held.length > 0) {
      const next = this.held[0] as HostFrame;
      if (!this.link?.send(next)) return;
      this.held.shift();
    }
  }
}
