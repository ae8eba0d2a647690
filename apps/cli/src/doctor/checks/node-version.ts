import { type Check, fail, ok, warn } from "../check.ts";

// The Node.js lines PhoneWork supports, as the root package.json's `engines` says
// ("^20.19 || ^22.12 || >=24"). Kept here, not read at run time: an installed package has no
// workspace package.json.

/** Node 20's end of life: no security fixes after it. */
const NODE_20_END_OF_LIFE = Date.UTC(2026, 3, 30);
const SUPPORTED = "^20.19, ^22.12 or ≥ 24";
const UPGRADE = "install Node.js 22 or 24 (LTS) and run PhoneWork with it";

function supportedNode(major: number, minor: number): boolean {
  return (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major >= 24;
}

export function checkNodeVersion(version: string, now: number): Check {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  if (!supportedNode(major, minor))
    return fail("Node.js", `${version} is not supported (${SUPPORTED})`, UPGRADE);
  if (major === 20) {
    const when =
      now >= NODE_20_END_OF_LIFE
        ? "Node 20 is past its end of life (30 April 2026): no more security fixes"
        : "Node 20 reaches its end of life on 30 April 2026";
    return warn("Node.js", `${version}: ${when}`, UPGRADE);
  }
  return ok("Node.js", version);
}
