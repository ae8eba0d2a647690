import type { HostFeature } from "../contracts/host-feature.ts";
import { contextCommands } from "./context-commands.ts";
import type { Channels } from "./open-channels.ts";
import type { WorkspaceLayout } from "./workspace-layout.ts";
import { workspacePromptSection } from "./workspace-prompt.ts";

// The per-chat workspace as the assistant sees it: where it is (in the system prompt) and the
// commands over a chat's context (/new-context, /reset).

export function createWorkspaceFeature(deps: {
  workspace: WorkspaceLayout;
  channels: Channels;
}): HostFeature {
  return {
    name: "workspace",
    commands: contextCommands(deps.channels.contexts),
    promptSection: workspacePromptSection(deps.workspace),
    stop: async () => {
      deps.channels.contexts.close();
      await deps.channels.log.close();
    },
  };
}
