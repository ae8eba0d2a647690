import type { HostConfig } from "../config/host-config.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { ToolContext } from "../contracts/tool.ts";
import { createFileOpsTool } from "./file-ops.ts";

// Files on the machine for the assistant: the file_ops tool (read, write, list, search, send),
// inside WORKING_DIR and the workspace, with other users' chats hidden.

export interface FilesFeatureDeps {
  config: Pick<HostConfig, "WORKING_DIR" | "MAX_FILE_BYTES">;
  workspace: { root: string };
  /** Who may see which chat: a call does not see other users' chats. */
  channels: { access: { hiddenFor(ctx: ToolContext): string[] } };
}

export function createFilesFeature({ config, workspace, channels }: FilesFeatureDeps): HostFeature {
  return {
    name: "files",
    tools: [
      createFileOpsTool({
        workingDir: config.WORKING_DIR,
        maxFileBytes: config.MAX_FILE_BYTES,
        workspace: { root: workspace.root, hiddenFor: (ctx) => channels.access.hiddenFor(ctx) },
      }),
    ],
    capabilities: () => ["file_ops"],
  };
}
