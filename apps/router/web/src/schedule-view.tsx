import type { OverviewJob } from "@phonework/protocol";
import { type Act, ActionButtons } from "./action-buttons.tsx";
import type { Placed } from "./overview-items.ts";

// Reminders, scheduled checks and workspace events still to run, soonest first, in the time zone
// each was set in (the user's, as the node knows it).

const KIND: Record<OverviewJob["kind"], string> = { message: "reminder", check: "check", event: "event" };

function when(job: OverviewJob): string {
  try {
    return new Date(job.due_at).toLocaleString(undefined, {
      timeZone: job.time_zone,
      dateStyle: "medium",
      timeStyle: "short",
    });
  } catch {
    return new Date(job.due_at).toLocaleString(); // a zone this browser does not know
  }
}

export function ScheduleView(props: { jobs: Array<Placed<OverviewJob>>; act: Act }) {
  const jobs = [...props.jobs].sort((a, b) => a.item.due_at - b.item.due_at);
  return (
    <section class="panel schedule" aria-label="Reminders and events">
      <h2>Reminders and events</h2>
      {jobs.length === 0 ? <p class="empty">Nothing scheduled. Try /remind 10m stretch.</p> : null}
      <ul>
        {jobs.map(({ node, nodeName, item }) => (
          <li key={`${node}/${item.id}`} class="job" data-job={item.id}>
            <div class="row">
              <strong>#{item.id}</strong> {item.text}
              <span class="state">{KIND[item.kind]}</span>
            </div>
            <div class="muted">
              {nodeName} · {when(item)}
              {item.repeat ? ` · ${item.repeat}` : ""}
            </div>
            <ActionButtons node={node} actions={item.actions} act={props.act} />
          </li>
        ))}
      </ul>
    </section>
  );
}
