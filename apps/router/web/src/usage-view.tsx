import type { OverviewUsage } from "@phonework/protocol";
import type { ConsoleNode } from "../../src/console/console-frames.ts";
import type { NodeOverviewState } from "./overview-items.ts";

// What the user's model calls cost, per online node that spent any in the last 30 days: a bar per
// day (the last 14, tokens in + out; the day's cost in its tooltip) and the last 30 days per kind. An inline SVG: no chart library,
// no inline styles for the CSP to refuse.

const BAR = 10;
const HEIGHT = 40;

function tokens(count: number): string {
  if (count < 1000) return String(count);
  const [value, unit] = count < 1_000_000 ? [count / 1000, "k"] : [count / 1_000_000, "M"];
  return `${value.toFixed(1).replace(/\.0$/, "")}${unit}`;
}

function usd(amount: number): string {
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  if (amount >= 0.01 || amount === 0) return `$${Number(amount.toFixed(3))}`;
  return `$${Number(amount.toPrecision(1))}`;
}

function NodeUsage(props: { name: string; usage: OverviewUsage }) {
  const { days, kinds } = props.usage;
  const max = Math.max(1, ...days.map((day) => day.tokens));
  return (
    <div class="node-usage" data-usage-node={props.name}>
      <h3>{props.name}</h3>
      <svg
        class="usage-chart"
        viewBox={`0 0 ${days.length * BAR} ${HEIGHT}`}
        role="img"
        aria-label={`Tokens per day on ${props.name}, the last ${days.length} days`}
      >
        {days.map((day, i) => {
          const height = Math.round((day.tokens / max) * (HEIGHT - 2));
          return (
            <rect
              key={day.day}
              x={i * BAR + 1}
              y={HEIGHT - height}
              width={BAR - 2}
              height={height}
              data-day={day.day}
            >
              <title>{`${day.day}: ${tokens(day.tokens)} tokens · ${usd(day.cost_usd)}`}</title>
            </rect>
          );
        })}
      </svg>
      <table class="usage-table">
        <thead>
          <tr>
            <th>last 30 days</th>
            <th>in</th>
            <th>out</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {kinds.map((kind) => (
            <tr key={kind.kind}>
              <td>{kind.kind}</td>
              <td>{tokens(kind.input)}</td>
              <td>{tokens(kind.output)}</td>
              <td>{kind.cost_usd === undefined ? "—" : usd(kind.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function UsageView(props: {
  nodes: readonly ConsoleNode[];
  overviews: Readonly<Record<string, NodeOverviewState>>;
}) {
  const shown = props.nodes
    .filter((node) => node.status === "online")
    .flatMap((node) => {
      // A node where nothing was spent in the last 30 days has nothing to show.
      const usage = props.overviews[node.id]?.overview.usage;
      return usage && usage.kinds.length > 0 ? [{ node, usage }] : [];
    });
  if (shown.length === 0) return null;
  return (
    <section class="panel usage" aria-label="Model usage">
      <h2>Model usage</h2>
      {shown.map(({ node, usage }) => (
        <NodeUsage key={node.id} name={node.name} usage={usage} />
      ))}
    </section>
  );
}
