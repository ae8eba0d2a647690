import type { HostTerminalFrame } from "@phonework/protocol";
import type { FrameTable } from "../contracts/node-frames.ts";
import type { TerminalRelay } from "./terminal-relay.ts";

/** A host's frames about terminals the router opened on it; without a relay (no console), dropped. */
export function terminalFrames(
  relay: Pick<TerminalRelay, "receive"> | undefined,
): FrameTable<HostTerminalFrame> {
  return ({ nodeId }) => {
    const receive = (frame: HostTerminalFrame) => relay?.receive(nodeId, frame);
    return {
      terminal_opened: receive,
      terminal_output: receive,
      terminal_exit: receive,
      terminal_refused: receive,
    };
  };
}
