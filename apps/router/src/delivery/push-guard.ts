import type { HostPushFrame } from "@phonework/protocol";
import { capText, TokenBucket } from "@phonework/runtime";
import { servesUser } from "../registry/node-info.ts";
import type { NodeDirectory } from "../registry/node-registry.ts";

// What a node may push. A node speaks only to the users the router lets it serve, at a bounded
// rate, in bounded pieces: a compromised or buggy host cannot spam anyone else, or anyone at all
// without limit. (Which chat a push may land in is NodeNotices' rule: chats the user wrote from.)

export type PushVerdict =
  | { ok: true; frame: HostPushFrame }
  /** Refused for good: acknowledged as not delivered, so the host stops resending it. */
  | { ok: false; kind: "refused"; error: string }
  /** Over the rate: the host keeps it and tries again later. */
  | { ok: false; kind: "rate_limited"; retryAfterS: number };

export interface PushLimits {
  maxChars: number;
  perMinute: number;
}

export class PushGuard {
  /** One per node that pushed: paired nodes, and local ones admitted by the shared secret. */
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly nodes: NodeDirectory,
    private readonly limits: PushLimits,
    private readonly now: () => number,
  ) {}

  check(nodeId: string, frame: HostPushFrame): PushVerdict {
    const node = this.nodes.get(nodeId);
    if (!node || !servesUser(node, frame.user_id))
      return { ok: false, kind: "refused", error: `node ${nodeId} does not serve user ${frame.user_id}` };
    const bucket = this.bucketOf(nodeId);
    if (!bucket.tryTake()) return { ok: false, kind: "rate_limited", retryAfterS: Math.ceil(bucket.waitS()) };
    return { ok: true, frame: this.capped(frame) };
  }

  private bucketOf(nodeId: string): TokenBucket {
    let bucket = this.buckets.get(nodeId);
    if (!bucket) {
      bucket = new TokenBucket(this.limits.perMinute / 60, this.limits.perMinute, this.now);
      this.buckets.set(nodeId, bucket);
    }
    return bucket;
  }

  private capped(frame: HostPushFrame): HostPushFrame {
    const cut = (text: string) => capText(text, this.limits.maxChars);
    if (frame.type === "notify") return { ...frame, text: cut(frame.text) };
    if (frame.type === "task_complete")
      return { ...frame, description: cut(frame.description), output: cut(frame.output) };
    return frame;
  }
}
