import type { Logger } from "@phonework/runtime";
import type { HostFeature } from "../contracts/host-feature.ts";
import type { WorkspaceLayout } from "../workspace/workspace-layout.ts";
import { SkillLibrary } from "./skill-library.ts";
import { createSkillTool, skillsPromptSection } from "./skill-tool.ts";
import { skillsCommand } from "./skills-command.ts";

// Skills: SKILL.md files in the workspace (and in a chat's directory) that the assistant lists in
// its prompt and reads with the skill tool when one applies.

export function createSkillsFeature(deps: { workspace: WorkspaceLayout; logger: Logger }): HostFeature {
  const skills = new SkillLibrary(deps.workspace, deps.logger.child({ component: "skills" }));
  return {
    name: "skills",
    assistantTools: [createSkillTool(skills)],
    commands: [skillsCommand(skills)],
    promptSection: skillsPromptSection(skills),
  };
}
