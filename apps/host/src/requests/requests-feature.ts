import type { HostFrame } from "@phonework/protocol";
import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { MessageHandler } from "../contracts/message-handler.ts";
import type { Outbox } from "../delivery/outbox.ts";
import { withChannelIntake } from "../workspace/channel-intake.ts";
import { createInbox } from "../workspace/inbox.ts";
import type { Channels } from "../workspace/open-channels.ts";
import type { WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { RequestRunner } from "./request-runner.ts";

// The router's requests: each `forward` runs through the chat's intake (its directory, its
// attachments, its log) and the handler (the assistant), and is answered through the outbox under
// its correlation id; `cancel` stops one.

export interface RequestsFeatureDeps {
  config: Pick<HostConfig, "MAX_ATTACHMENT_BYTES">;
  handler: MessageHandler;
  workspace: WorkspaceLayout;
  channels: Channels;
  outbox: Outbox;
  send: (frame: HostFrame) => boolean;
  servesUser: (userId: string) => boolean;
  logger: Logger;
}

export interface RequestsFeature extends HostFeature<"forward" | "cancel"> {
  readonly runner: RequestRunner;
}

export function createRequestsFeature(deps: RequestsFeatureDeps): RequestsFeature {
  const inbox = createInbox({
    maxBytes: deps.config.MAX_ATTACHMENT_BYTES,
    logger: deps.logger.child({ component: "inbox" }),
  });
  const { layout, log, access } = { layout: deps.workspace, ...deps.channels };
  const runner = new RequestRunner(
    withChannelIntake(deps.handler, { layout, inbox, log, access }),
    deps.send,
    (answer, deliveryId) => deps.outbox.enqueue(answer, deliveryId),
    deps.logger,
    deps.servesUser,
  );
  return {
    name: "requests",
    runner,
    frames: {
      forward: (frame) => runner.run(frame),
      cancel: (frame) => runner.cancel(frame.id, frame.reason),
    },
    stop: () => runner.cancelAll("host stopping"),
  };
}
