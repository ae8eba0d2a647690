// The chat's own words for "how long ago" (clock.ts has no Node imports, so it bundles for the page).
import { formatAgo } from "@phonework/runtime/clock";
import type { ConsoleNode } from "../../src/console/console-frames.ts";

// The user's nodes: up or down, last seen, capabilities, how many coding sessions; a terminal where
// the host has them. (The sessions themselves are in the sessions view; pairing in the admin view.)

export interface NodesViewProps {
  nodes: ConsoleNode[];
  /** The router's clock minus the page's, so "last seen" does not depend on this device's clock. */
  clockSkewMs: number;
  openTerminal: (node: string) => void;
  chatTo: (node: string) => void;
}

export function NodesView(props: NodesViewProps) {
  const now = Date.now() + props.clockSkewMs;
  return (
    <section class="panel nodes" aria-label="Nodes">
      <h2>Nodes</h2>
      {props.nodes.length === 0 ? <p class="empty">No node serves you yet.</p> : null}
      <ul>
        {props.nodes.map((node) => (
          <li key={node.id} class={`node ${node.status}`} data-node={node.id}>
            <div class="node-head">
              <span class="dot" aria-hidden="true" />
              <strong>{node.name}</strong>
              {node.name !== node.id ? <span class="muted"> ({node.id})</span> : null}
              <span class="node-status">
                {node.status === "online"
                  ? "online"
                  : `offline · last seen ${formatAgo(now - node.last_seen)}`}
              </span>
            </div>
            {node.capabilities.length > 0 ? (
              <div class="chips">
                {node.capabilities.map((capability) => (
                  <span class="chip" key={capability}>
                    {capability}
                  </span>
                ))}
              </div>
            ) : null}
            <SessionCount node={node} />
            <div class="actions">
              <button type="button" onClick={() => props.chatTo(node.id)}>
                Chat here
              </button>
              {node.terminal ? (
                <button type="button" onClick={() => props.openTerminal(node.id)}>
                  Open terminal
                </button>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SessionCount({ node }: { node: ConsoleNode }) {
  const busy = node.sessions.filter((session) => session.busy).length;
  if (node.sessions.length === 0) return <div class="muted">no coding sessions</div>;
  return (
    <div class="muted">
      {node.sessions.length} coding session{node.sessions.length > 1 ? "s" : ""}
      {busy > 0 ? `, ${busy} working` : ""}
    </div>
  );
}
