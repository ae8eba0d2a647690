import type { HostFrame } from "@phonework/protocol";
import type { FrameTable } from "../contracts/node-frames.ts";
import type { NodeRegistry } from "./node-registry.ts";

/** A host telling what it runs now: its coding sessions and capabilities, kept in the registry. */
export type RegistryFrame = Extract<HostFrame, { type: "sessions_update" }>;

export function registryFrames(registry: Pick<NodeRegistry, "updateSessions">): FrameTable<RegistryFrame> {
  return ({ nodeId }) => ({
    sessions_update: (frame) => registry.updateSessions(nodeId, frame.sessions, frame.capabilities),
  });
}
