import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { Tool } from "../contracts/tool.ts";
import type { WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { CustomTools } from "./custom-tools.ts";
import { toolsCommand } from "./tools-command.ts";

// The workspace's own tools (tools/<name>/index.ts), loaded and reloaded while the host runs, and
// /tools, which lists them beside the built-in ones.

export interface CustomToolsFeatureDeps {
  config: Pick<HostConfig, "CUSTOM_TOOL_TIMEOUT_S">;
  workspace: WorkspaceLayout;
  /** The built-in tools: their names are taken, and /tools lists them. */
  builtIn: readonly Tool[];
  /** Loaded only for the assistant (not when a handler replaces it). */
  enabled: boolean;
  logger: Logger;
}

export function createCustomToolsFeature(deps: CustomToolsFeatureDeps): HostFeature {
  const custom = new CustomTools({
    dir: deps.workspace.toolsDir,
    // "web" too: it is built in, even where it is not configured.
    reserved: [...deps.builtIn.map((tool) => tool.name), "web"],
    timeoutMs: deps.config.CUSTOM_TOOL_TIMEOUT_S * 1000,
    workspace: deps.workspace.root,
    logger: deps.logger.child({ component: "custom-tools" }),
  });
  return {
    name: "custom-tools",
    liveTools: () => {
      custom.checkSoon(); // an edit the watcher missed is loaded for the next turn
      return custom.tools();
    },
    commands: [toolsCommand(deps.builtIn, custom)],
    start: () => (deps.enabled ? custom.start() : undefined),
    stop: () => custom.close(),
  };
}
