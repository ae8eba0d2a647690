import { type CallFrame, loadProfile, shortUrl } from "./cpu-profile.ts";

// `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`: where a V8 CPU profile spent
// its busy samples, as Markdown for BENCHMARKS.md: self time by function (a native function with no
// source is named after the JavaScript function that called it) and self time by area.

const [path, topArg] = process.argv.slice(2);
if (!path) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
const { profile, byId, parent } = loadProfile(path);

const file = shortUrl;
const describe = (frame: CallFrame) =>
  `\`${frame.functionName || "(anonymous)"}\` ${frame.url ? `${file(frame.url)}:${frame.lineNumber + 1}` : ""}`;

/** A frame without source is native: name it after the nearest caller that has source. */
function label(id: number): { name: string; url: string } {
  const node = byId.get(id);
  if (!node) return { name: "?", url: "" };
  const frame = node.callFrame;
  if (frame.url || frame.functionName.startsWith("(")) return { name: describe(frame), url: frame.url };
  let up = parent.get(id);
  while (up !== undefined) {
    const caller = byId.get(up)?.callFrame;
    if (caller?.url)
      return {
        name: `native \`${frame.functionName || "(anonymous)"}\` from ${describe(caller)}`,
        url: caller.url,
      };
    up = parent.get(up);
  }
  return { name: describe(frame), url: "" };
}

function area(url: string, name: string): string {
  if (name.includes("(garbage collector)")) return "garbage collector";
  if (url.includes("better-sqlite3")) return "SQLite (better-sqlite3, native included)";
  for (const pkg of ["zod", "pino", "@pinojs", "ws/", "fastify", "sonic-boom"])
    if (url.includes(`/${pkg}`)) return pkg.replace("/", "");
  if (url.includes("/apps/router/")) return "router code";
  if (url.includes("/apps/host/")) return "host code";
  if (url.includes("/packages/")) return "shared packages (protocol, runtime)";
  if (url.startsWith("node:")) return "Node internals";
  return url ? "other JavaScript" : "native/other";
}

const self = new Map<string, number>();
const areas = new Map<string, number>();
let idle = 0;
for (const id of profile.samples) {
  const { name, url } = label(id);
  if (name.includes("(idle)")) {
    idle++;
    continue;
  }
  self.set(name, (self.get(name) ?? 0) + 1);
  const where = area(url, name);
  areas.set(where, (areas.get(where) ?? 0) + 1);
}
const busy = profile.samples.length - idle;
const pct = (n: number) => ((100 * n) / busy).toFixed(1);
console.log(
  `${profile.samples.length} samples, ${pct(idle)}% idle (of busy); self time of the busy samples:\n`,
);
console.log("| area | self % |\n|---|---:|");
for (const [name, n] of [...areas].sort((a, b) => b[1] - a[1])) console.log(`| ${name} | ${pct(n)} |`);
console.log("\n| function | self % |\n|---|---:|");
for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 20)))
  console.log(`| ${name} | ${pct(n)} |`);
