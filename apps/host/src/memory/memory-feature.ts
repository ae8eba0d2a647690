import { join } from "node:path";
import type { HostConfig } from "../config/host-config.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { memoryCommands } from "./memory-commands.ts";
import { MemoryFiles } from "./memory-files.ts";
import { memoryPromptSection } from "./memory-prompt.ts";
import type { Owners } from "./memory-scopes.ts";
import { createMemoryTool } from "./memory-tool.ts";

// What the assistant remembers: the workspace's, each user's (kept outside the workspace) and
// each chat's memory file, in the system prompt within MEMORY_MAX_TOKENS, with its tool and /memory.

export interface MemoryFeatureDeps {
  config: Pick<HostConfig, "MEMORY_MAX_TOKENS">;
  workspace: WorkspaceLayout;
  stateDir: string;
  /** Who owns this node: only they change the workspace's memory. */
  owners: Owners;
}

export function createMemoryFeature({ config, workspace, stateDir, owners }: MemoryFeatureDeps): HostFeature {
  const memory = new MemoryFiles(workspace, join(stateDir, "user-memory"));
  return {
    name: "memory",
    // The chat's memory, not a subtask's: workers do not get it.
    assistantTools: [createMemoryTool(memory, owners)],
    commands: memoryCommands(memory, owners),
    promptSection: memoryPromptSection(memory, owners, config.MEMORY_MAX_TOKENS),
  };
}
