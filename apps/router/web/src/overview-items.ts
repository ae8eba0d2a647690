import type { Overview } from "@phonework/protocol";
import type { ConsoleNode } from "../../src/console/console-frames.ts";

// The overviews of the user's nodes, flattened into one list per kind (every approval, every
// session…), each item with the node it is on. Only online nodes count: an offline node's last
// overview would show work that may have ended meanwhile.

export interface NodeOverviewState {
  at: number;
  overview: Overview;
}

export interface Placed<T> {
  node: string;
  nodeName: string;
  item: T;
}

/** The overview's lists (its usage is one object per node, shown on its own). */
type ListKey = Exclude<keyof Overview, "usage">;

export function itemsOf<K extends ListKey>(
  nodes: readonly ConsoleNode[],
  overviews: Readonly<Record<string, NodeOverviewState>>,
  kind: K,
): Array<Placed<Overview[K][number]>> {
  return nodes
    .filter((node) => node.status === "online")
    .flatMap((node) =>
      (overviews[node.id]?.overview[kind] ?? []).map((item: Overview[K][number]) => ({
        node: node.id,
        nodeName: node.name,
        item,
      })),
    );
}
