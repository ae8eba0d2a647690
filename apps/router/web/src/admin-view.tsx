import { formatAgo } from "@phonework/runtime/clock";
import { useState } from "preact/hooks";
import type { AdminNode } from "../../src/console/console-frames.ts";

// For admins: every node the router knows, who paired it and whom it serves; pairing a new host,
// sharing, revoking and forgetting — through the router's own admin commands, so the router checks
// the admin again and the answer (a join code) arrives in the chat.

export function AdminView(props: { nodes: AdminNode[]; now: number; command: (text: string) => void }) {
  const [pairName, setPairName] = useState("");
  const [shareUser, setShareUser] = useState<Record<string, string>>({});
  const value = (event: Event) => (event.target as HTMLInputElement).value;
  return (
    <section class="panel admin" aria-label="Admin">
      <h2>Admin: hosts</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (pairName.trim()) props.command(`/pair ${pairName.trim()}`);
          setPairName("");
        }}
      >
        <input
          aria-label="New host name"
          placeholder="new host name"
          value={pairName}
          onInput={(event) => setPairName(value(event))}
        />
        <button type="submit">Pair a host</button>
      </form>
      <ul>
        {props.nodes.map((node) => (
          <li key={node.id} class={`admin-node ${node.status}`} data-admin-node={node.id}>
            <div class="row">
              <strong>{node.name}</strong>
              {node.name !== node.id ? <span class="muted"> ({node.id})</span> : null}
              <span class="state">
                {node.revoked
                  ? "revoked"
                  : node.status === "online"
                    ? "online"
                    : `offline, seen ${formatAgo(props.now - node.last_seen)}`}
              </span>
            </div>
            <div class="muted">
              {node.paired ? `paired by ${node.owner ?? "?"}` : "admitted by the shared secret"} · serves{" "}
              {node.serves === "all" ? "everyone allowed" : node.serves.join(", ") || "nobody"}
            </div>
            <div class="actions">
              {node.paired && node.serves !== "all"
                ? node.serves
                    .filter((user) => user !== node.owner)
                    .map((user) => (
                      <button
                        type="button"
                        key={user}
                        onClick={() => props.command(`/unshare ${node.id} ${user}`)}
                      >
                        Unshare {user}
                      </button>
                    ))
                : null}
              {node.paired && !node.revoked ? (
                <button
                  type="button"
                  class="danger"
                  onClick={() => {
                    if (confirm(`Revoke ${node.id}? Its key is refused from then on.`))
                      props.command(`/revoke ${node.id}`);
                  }}
                >
                  Revoke
                </button>
              ) : null}
              {node.status === "offline" ? (
                <button type="button" onClick={() => props.command(`/forget ${node.id}`)}>
                  Forget
                </button>
              ) : null}
            </div>
            {node.paired && !node.revoked ? (
              <form
                class="inline-form"
                onSubmit={(event) => {
                  event.preventDefault();
                  const user = shareUser[node.id]?.trim();
                  if (user) props.command(`/share ${node.id} ${user}`);
                  setShareUser({ ...shareUser, [node.id]: "" });
                }}
              >
                <input
                  aria-label={`Share ${node.id} with`}
                  placeholder="share with user id"
                  value={shareUser[node.id] ?? ""}
                  onInput={(event) => setShareUser({ ...shareUser, [node.id]: value(event) })}
                />
                <button type="submit">Share</button>
              </form>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
