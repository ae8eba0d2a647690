import { type CallFrame, loadProfile, shortUrl } from "./cpu-profile.ts";

// `node --import tsx bench/profile-sides.ts <file.cpuprofile> [top]`: which side of the forwarding
// rig (router, host, the bench itself) each busy sample was spent for. A sample is charged to the
// innermost app frame on its stack (apps/host, apps/router, bench), so ws, SQLite, Node's file
// system and the protocol package count for the side that called them; samples with no app frame
// on the stack (the event loop, socket reads before ws hands a frame over) are "unattributed".
// Then the host's top functions, self time charged the same way.

const [path, topArg] = process.argv.slice(2);
if (!path) throw new Error("usage: profile-sides.ts <file.cpuprofile> [top]");
const { profile, byId, parent } = loadProfile(path);

const short = shortUrl;
const sideOf = (url: string) =>
  url.includes("/apps/host/")
    ? "host"
    : url.includes("/apps/router/")
      ? "router"
      : /\/bench\/[^/]+$/.test(url)
        ? "bench"
        : undefined;

const sides = new Map<string, number>();
const hostFunctions = new Map<string, number>();
let idle = 0;
for (const id of profile.samples) {
  const leaf = byId.get(id)?.callFrame;
  if (!leaf || leaf.functionName === "(idle)") {
    idle++;
    continue;
  }
  let side = leaf.functionName === "(garbage collector)" ? "garbage collector" : "unattributed";
  let owner: CallFrame | undefined;
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)?.callFrame;
    const found = frame && sideOf(frame.url);
    if (found) {
      side = found;
      owner = frame;
      break;
    }
  }
  sides.set(side, (sides.get(side) ?? 0) + 1);
  if (side === "host" && owner) {
    const leafName = leaf.url ? "" : ` (native \`${leaf.functionName || "(anonymous)"}\`)`;
    const key = `\`${owner.functionName || "(anonymous)"}\` ${short(owner.url)}:${owner.lineNumber + 1}${leaf === owner ? "" : leafName || ` → \`${leaf.functionName || "(anonymous)"}\` ${short(leaf.url)}`}`;
    hostFunctions.set(key, (hostFunctions.get(key) ?? 0) + 1);
  }
}
const busy = profile.samples.length - idle;
const pct = (n: number) => ((100 * n) / busy).toFixed(1);
console.log(`${busy} busy samples; charged to the innermost app frame:\n`);
console.log("| side | % of busy |\n|---|---:|");
for (const [name, n] of [...sides].sort((a, b) => b[1] - a[1])) console.log(`| ${name} | ${pct(n)} |`);
console.log("\n| host frame (→ what it spent in) | % of busy |\n|---|---:|");
for (const [name, n] of [...hostFunctions].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25)))
  console.log(`| ${name} | ${pct(n)} |`);
