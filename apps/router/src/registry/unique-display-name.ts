import type { RegisterFrame } from "@phonework/protocol";
import type { PairedNode } from "../pairing/node-store.ts";
import type { NodeInfo } from "./node-info.ts";
import { nodeAudience } from "./node-registry.ts";

// A display name is how a person tells machines apart ("@Home PC"). Another node taking a name
// that one of the same user's nodes already answers to would receive messages meant for it, so
// a clashing name is refused and the node keeps its id, which nobody else can hold.

export function uniqueDisplayName(
  registry: { list(): NodeInfo[] },
  frame: RegisterFrame,
  paired: PairedNode | undefined,
): string {
  const wanted = frame.display_name.trim().toLowerCase();
  if (wanted === frame.node_id.toLowerCase()) return frame.display_name;
  const audience = nodeAudience(frame.serves_users, paired);
  const clash = registry
    .list()
    .some(
      (other) =>
        other.nodeId !== frame.node_id &&
        sharesAUser(audience, other.servesUsers) &&
        (other.nodeId.toLowerCase() === wanted || other.displayName.trim().toLowerCase() === wanted),
    );
  return clash ? frame.node_id : frame.display_name;
}

function sharesAUser(a: readonly string[] | "all", b: readonly string[] | "all"): boolean {
  if (a === "all" || b === "all") return true;
  return a.some((user) => b.includes(user));
}
