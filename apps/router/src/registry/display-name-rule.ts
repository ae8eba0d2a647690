import type { RegisterFrame } from "@phonework/protocol";
import type { PairedNode } from "../pairing/node-store.ts";
import { begins, nameKey } from "./name-index.ts";
import type { NodeInfo } from "./node-info.ts";
import { nodeAudience } from "./node-registry.ts";

// A display name is how a person tells machines apart ("@Home PC"), and a host picks its own. A
// name that is, or begins, what one of the same users' other nodes answers to would receive
// messages meant for that node ("alice-pc /shell" catches "@alice-pc /shell …"; "Home PC files"
// catches "@Home PC files list"), so such a name is refused at register, saying why. Ids are
// given by an admin at pairing and always win over display names (explicit-target.ts).

/** Why this node may not use its display name, or undefined when it may. */
export function displayNameRefusal(
  registry: { nameCandidates(wanted: string): NodeInfo[] },
  frame: RegisterFrame,
  paired: PairedNode | undefined,
): string | undefined {
  const wanted = nameKey(frame.display_name);
  if (wanted === frame.node_id.toLowerCase()) return undefined;
  const audience = nodeAudience(frame.serves_users, paired);
  for (const other of registry.nameCandidates(wanted)) {
    if (other.nodeId === frame.node_id || !sharesAUser(audience, other.servesUsers)) continue;
    const id = other.nodeId.toLowerCase();
    const name = nameKey(other.displayName);
    const why = begins(wanted, id)
      ? `it ${wanted === id ? "is" : "begins with"} "${other.nodeId}", the id of another node`
      : begins(wanted, name)
        ? `it ${wanted === name ? "is" : "begins with"} "${other.displayName}", the name of node "${other.nodeId}"`
        : name !== id && begins(name, wanted)
          ? `it begins the name of node "${other.nodeId}" ("${other.displayName}")`
          : undefined;
    if (why)
      return `display name "${frame.display_name}" refused: ${why} serving the same user, so a message to that node could reach this one; set DISPLAY_NAME to another name`;
  }
  return undefined;
}

function sharesAUser(a: readonly string[] | "all", b: readonly string[] | "all"): boolean {
  if (a === "all" || b === "all") return true;
  return a.some((user) => b.includes(user));
}
