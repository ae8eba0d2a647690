import { type ForwardFrame, WireError } from "@phonework/protocol";
import type { NodeAnswer } from "../contracts/node-answer.ts";
import type { ForwardOptions, NodeConnection } from "../node-link/node-connection.ts";
import type { NodeRegistry } from "../registry/node-registry.ts";

/**
 * Sends a user's message to a node and resolves with its answer and delivery id (to acknowledge
 * once shown); fails fast if the node is offline.
 */
export function createForwarder(registry: NodeRegistry<NodeConnection>) {
  return (nodeId: string, frame: ForwardFrame, options: ForwardOptions): Promise<NodeAnswer> => {
    const connection = registry.connection(nodeId);
    if (!connection?.isOpen) {
      return Promise.reject(new WireError("NODE_OFFLINE", `node "${nodeId}" is offline`, nodeId));
    }
    return connection.forward(frame, options);
  };
}

export type Forwarder = ReturnType<typeof createForwarder>;
