import { type Check, fail, ok } from "./check.ts";

// The Node.js lines PhoneWork supports, as the root package.json's `engines` says
// ("^22.12 || >=24": the LTS lines). Node 20 reached its end of life on 30 April 2026 and is not
// supported. Kept here, not read at run time: an installed package has no workspace package.json.

const SUPPORTED = "^22.12 or ≥ 24";
const UPGRADE = "install Node.js 22 or 24 (LTS) and run PhoneWork with it";

function supportedNode(major: number, minor: number): boolean {
  return (major === 22 && minor >= 12) || major >= 24;
}

export function checkNodeVersion(version: string): Check {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  if (major === 20)
    return fail(
      "Node.js",
      `${version}: Node 20 is past its end of life (30 April 2026) and not supported`,
      UPGRADE,
    );
  if (!supportedNode(major, minor))
    return fail("Node.js", `${version} is not supported (${SUPPORTED})`, UPGRADE);
  return ok("Node.js", version);
}
