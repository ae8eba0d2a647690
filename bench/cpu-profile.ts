import { readFileSync } from "node:fs";

// A V8 CPU profile (`--cpu-prof`) as the profile scripts read it: its nodes by id, each node's
// parent, and source URLs shortened to the package path (profile-summary.ts, profile-sides.ts).

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

export interface LoadedProfile {
  profile: Profile;
  byId: Map<number, ProfileNode>;
  parent: Map<number, number>;
}

export function loadProfile(path: string): LoadedProfile {
  const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  return { profile, byId, parent };
}

/** "file:///…/apps/host/src/x.ts" → "apps/host/src/x.ts"; a package's file → "<package>/<path>". */
export const shortUrl = (url: string) =>
  url
    .replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, "")
    .replace(/^file:\/\/.*?\/(apps|packages|bench)\//, "$1/");
