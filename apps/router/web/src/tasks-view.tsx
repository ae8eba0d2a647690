import type { OverviewPlan, OverviewTask } from "@phonework/protocol";
import { formatAgo } from "@phonework/runtime/clock";
import { type Act, ActionButtons } from "./action-buttons.tsx";
import type { Placed } from "./overview-items.ts";

// Background tasks and Master/Worker plans, with their states: running ones first (the node's
// order), then the latest ended, each with the end of its output or its subtasks.

export function TasksView(props: {
  tasks: Array<Placed<OverviewTask>>;
  plans: Array<Placed<OverviewPlan>>;
  now: number;
  act: Act;
}) {
  const ago = (at: number) => formatAgo(props.now - at);
  return (
    <section class="panel work-tasks" aria-label="Tasks and plans">
      <h2>Tasks and plans</h2>
      {props.tasks.length === 0 && props.plans.length === 0 ? (
        <p class="empty">No background tasks or plans.</p>
      ) : null}
      <ul>
        {props.plans.map(({ node, nodeName, item }) => (
          <li key={`plan/${node}/${item.id}`} class={`plan ${item.status}`} data-plan={item.id}>
            <div class="row">
              <strong>Plan {item.id}</strong> {item.goal}
              <span class="state">{item.status}</span>
            </div>
            <div class="muted">
              {nodeName} · started {ago(item.created_at)}
            </div>
            <ol class="subtasks">
              {item.subtasks.map((subtask) => (
                <li key={subtask.id} class={`subtask ${subtask.state.toLowerCase()}`}>
                  <span class="state">{subtask.state.toLowerCase()}</span> {subtask.id}: {subtask.objective}
                  {subtask.node ? <span class="muted"> · {subtask.node}</span> : null}
                  {subtask.attempts > 1 ? <span class="muted"> · {subtask.attempts} attempts</span> : null}
                  {subtask.last_error ? <div class="warn">{subtask.last_error}</div> : null}
                </li>
              ))}
            </ol>
            <ActionButtons node={node} actions={item.actions} act={props.act} />
          </li>
        ))}
        {props.tasks.map(({ node, nodeName, item }) => (
          <li key={`task/${node}/${item.id}`} class={`task ${item.status}`} data-task={item.id}>
            <div class="row">
              <strong>#{item.id}</strong> {item.description}
              <span class="state">{item.status}</span>
            </div>
            <div class="muted">
              {nodeName} · started {ago(item.started_at)}
              {item.exit_code !== undefined ? ` · exit ${item.exit_code}` : ""}
            </div>
            {item.output_tail ? <pre class="tail">{item.output_tail}</pre> : null}
            <ActionButtons node={node} actions={item.actions} act={props.act} />
          </li>
        ))}
      </ul>
    </section>
  );
}
