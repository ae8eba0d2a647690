import type { SimCommand, SimReport } from "./sim-control.ts";
import { emptyCounters, SimHost, simAddress } from "./sim-host.ts";

// Child process: a fleet of simulated hosts (see sim-host.ts), grown on command from the bench.

const report = (message: SimReport) => process.send?.(message);
process.on("disconnect", () => process.exit(0));

const hosts: SimHost[] = [];
const counters = emptyCounters();
let online = 0;
/** Hosts of the current `connect` batch still waiting for their first registration. */
let batchPending = 0;
let startNext: () => void = () => {};
const seen = new WeakSet<SimHost>();

const events = {
  registered(host: SimHost) {
    online++;
    if (seen.has(host)) return;
    seen.add(host);
    batchPending--;
    startNext();
    if (batchPending === 0) report({ type: "connected", online, total: hosts.length });
  },
  lost() {
    online--;
  },
};

function connect(command: Extract<SimCommand, { type: "connect" }>): void {
  const queue = Array.from(
    { length: command.count },
    (_, i) =>
      new SimHost(
        `sim-${hosts.length + i}`,
        command.url,
        command.secret,
        simAddress(hosts.length + i),
        counters,
        events,
      ),
  );
  hosts.push(...queue);
  batchPending = queue.length;
  // A first connect of thousands at once would itself be a storm; the storm is measured elsewhere.
  startNext = () => queue.shift()?.start();
  for (let i = 0; i < command.parallel; i++) startNext();
  if (batchPending === 0) report({ type: "connected", online, total: hosts.length });
}

process.on("message", (command: SimCommand) => {
  if (command.type === "connect") {
    connect(command);
    return;
  }
  report({ type: "counters", counters: { ...counters }, online, total: hosts.length });
  if (command.reset) Object.assign(counters, emptyCounters());
});
