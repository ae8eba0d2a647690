import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { Cleanup } from "./cleanup.ts";
import { runClosedLoop } from "./closed-loop.ts";
import { startForwardingRig } from "./forwarding-rig.ts";

// `node --import tsx bench/profile-forwarding.ts [users] [seconds] [out.cpuprofile]`: the round-trip
// part's forwarded path alone (no raw echo, no other figures), profiled (V8's sampling profiler,
// as --cpu-prof, but only over the measured window: start-up and tsx's compiling are left out), so
// the profile is the router's and the host's cost per message. bench/profile-summary.ts reads it.

const users = Number(process.argv[2] ?? 10);
const seconds = Number(process.argv[3] ?? 5);
const out = process.argv[4] ?? ".tmp/forwarding.cpuprofile";
const cleanup = new Cleanup();
try {
  const { roundTrip } = await startForwardingRig(cleanup);
  await runClosedLoop(users, 500, roundTrip);
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const cpuBefore = process.cpuUsage();
  const mainBefore = process.threadCpuUsage();
  const result = await runClosedLoop(users, seconds * 1000, roundTrip);
  const cpu = process.cpuUsage(cpuBefore);
  // The main thread's own share (router and host share it here): work moved to other threads leaves it.
  const main = process.threadCpuUsage(mainBefore);
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(out, JSON.stringify(profile));
  session.disconnect();
  const cpuUs = (cpu.user + cpu.system) / result.messages;
  console.log(
    JSON.stringify({
      users,
      messages: result.messages,
      perSecond: Math.round(result.perSecond),
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      cpuUsPerMessage: Math.round(cpuUs),
      mainThreadUsPerMessage: Math.round((main.user + main.system) / result.messages),
    }),
  );
} finally {
  await cleanup.runAll();
}
