import { OVERVIEW_CAPABILITY } from "@phonework/protocol";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { OverviewSources } from "./build-overview.ts";
import type { HostOverview } from "./create-overview.ts";

// The console's overview of a user's work here: the router asks (overview_request), and is told
// when something changed. The stores it reads are the other features'.

export function createOverviewFeature(deps: {
  overview: HostOverview;
  sources: Omit<OverviewSources, "activity">;
}): HostFeature<"overview_request"> {
  const { overview } = deps;
  const sources = { ...deps.sources, activity: overview.activity };
  return {
    name: "overview",
    frames: { overview_request: (frame) => overview.answer(frame, sources) },
    capabilities: () => [OVERVIEW_CAPABILITY],
    stop: () => overview.close(),
  };
}
