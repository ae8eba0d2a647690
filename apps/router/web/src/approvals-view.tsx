import type { OverviewApproval } from "@phonework/protocol";
import { formatAgo, formatDuration } from "@phonework/runtime/clock";
import { type Act, ActionButtons } from "./action-buttons.tsx";
import type { Placed } from "./overview-items.ts";

// Coding agents waiting for the user's yes or no, on any node and from any chat: shown first, since
// a session stands still until one is answered (or declined when it expires).

export function ApprovalsView(props: { approvals: Array<Placed<OverviewApproval>>; now: number; act: Act }) {
  if (props.approvals.length === 0) return null;
  return (
    <section class="panel approvals" aria-label="Approvals">
      <h2>Waiting for you ({props.approvals.length})</h2>
      <ul>
        {props.approvals.map(({ node, nodeName, item }) => (
          <li key={`${node}/${item.id}`} class="approval" data-approval={item.id}>
            <div class="what">{item.what}</div>
            <div class="muted">
              {nodeName} · asked {formatAgo(props.now - item.asked_at)}
              {item.chat ? ` in ${item.chat}` : ""} · declined in{" "}
              {formatDuration(item.expires_at - props.now)}
            </div>
            <ActionButtons node={node} actions={item.actions} act={props.act} />
          </li>
        ))}
      </ul>
    </section>
  );
}
