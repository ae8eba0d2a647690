import type { HostOverviewFrame } from "@phonework/protocol";
import type { FrameTable } from "../contracts/node-frames.ts";
import type { OverviewRelay } from "./overview-relay.ts";

/** A host's overviews and its notices that one changed; without a relay (no console), dropped. */
export function overviewFrames(
  relay: Pick<OverviewRelay, "receive"> | undefined,
): FrameTable<HostOverviewFrame> {
  return ({ nodeId }) => {
    const receive = (frame: HostOverviewFrame) => relay?.receive(nodeId, frame);
    return { overview: receive, overview_changed: receive };
  };
}
