import type { HostFrame, OverviewRequestFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import { buildOverview, type OverviewSources } from "./build-overview.ts";

// The router's `overview_request`s: answered at once with the user's overview, live (not through
// the outbox: a newer one replaces it anyway), or refused for a user this host does not serve.

export interface LinkOverviewDeps {
  sources: OverviewSources;
  servesUser: (userId: string) => boolean;
  send: (frame: HostFrame) => boolean;
  now: () => number;
  logger: Logger;
}

export function answerOverviewRequest(frame: OverviewRequestFrame, deps: LinkOverviewDeps): void {
  if (!deps.servesUser(frame.user_id)) {
    deps.send({
      type: "error",
      id: frame.id,
      code: "UNAUTHORIZED",
      message: "this node does not serve that user (SERVES_USERS)",
    });
    return;
  }
  try {
    const overview = buildOverview(frame.user_id, deps.sources);
    deps.send({ type: "overview", id: frame.id, user_id: frame.user_id, at: deps.now(), overview });
  } catch (error) {
    deps.logger.error({ err: error, userId: frame.user_id }, "overview failed");
    deps.send({ type: "error", id: frame.id, code: "INTERNAL", message: "the overview could not be read" });
  }
}
