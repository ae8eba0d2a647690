import type { OverviewSession } from "@phonework/protocol";
import { formatAgo } from "@phonework/runtime/clock";
import { type Act, ActionButtons } from "./action-buttons.tsx";
import type { Placed } from "./overview-items.ts";

// Coding sessions: what each is doing right now (the running turn's latest progress lines) and
// its recent turns, prompt and answer, as the node reports them.

export function SessionsView(props: { sessions: Array<Placed<OverviewSession>>; now: number; act: Act }) {
  return (
    <section class="panel work-sessions" aria-label="Coding sessions">
      <h2>Coding sessions</h2>
      {props.sessions.length === 0 ? <p class="empty">No coding sessions. Start one with /new.</p> : null}
      <ul>
        {props.sessions.map(({ node, nodeName, item }) => (
          <li
            key={`${node}/${item.id}`}
            class={`work-session${item.busy ? " busy" : ""}`}
            data-session={item.id}
          >
            <div class="row">
              <strong>
                #{item.id} {item.agent}
              </strong>{" "}
              in {item.project || "(no project)"}
              <span class="state">{item.busy ? "working" : "idle"}</span>
            </div>
            <div class="muted">
              {nodeName}
              {item.active ? " · active" : ""}
              {item.model ? ` · ${item.model}` : ""} · {formatAgo(props.now - item.last_activity)}
            </div>
            {item.progress.length > 0 ? (
              <ol class="progress" aria-label="Progress">
                {item.progress.map((line, index) => (
                  <li key={index}>{line}</li>
                ))}
              </ol>
            ) : null}
            {item.turns.length > 0 ? (
              <details class="turns">
                <summary>Recent turns ({item.turns.length})</summary>
                <ol>
                  {item.turns.map((turn) => (
                    <li key={turn.started_at} class={turn.ok === false ? "failed" : undefined}>
                      <div class="prompt">› {turn.prompt}</div>
                      {turn.answer !== undefined ? (
                        <div class="answer">{turn.answer}</div>
                      ) : (
                        <div class="muted">running…</div>
                      )}
                    </li>
                  ))}
                </ol>
              </details>
            ) : null}
            <ActionButtons node={node} actions={item.actions} act={props.act} />
          </li>
        ))}
      </ul>
    </section>
  );
}
