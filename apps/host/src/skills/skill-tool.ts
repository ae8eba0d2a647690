import type { ForwardFrame } from "@phonework/protocol";
import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../contracts/tool.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import type { SkillLibrary } from "./skill-library.ts";

// What the model sees of the skills: their names and descriptions in the system prompt, and a
// `skill` tool that loads one's full body when the model decides to use it.

const SkillArgs = z.object({
  name: z.string().min(1).describe("the skill's name, as the system prompt lists it"),
});

export function createSkillTool(library: SkillLibrary): Tool {
  return defineTool({
    name: "skill",
    description:
      "Load a skill: the full instructions for a kind of job, listed by name and description in the system prompt. Load it before doing that job, then follow it.",
    schema: SkillArgs,
    describe: ({ name }) => `reading skill ${name}`,
    execute: async ({ name }, ctx) => {
      const channel = channelOf(ctx.platform, ctx.chatId);
      const entry = library.find(name, channel);
      if (!entry) {
        const known = library.available(channel).map((s) => s.name);
        throw new ToolError(
          `there is no skill named "${name}"; skills here: ${known.length > 0 ? known.join(", ") : "none"}`,
        );
      }
      if (!entry.skill) throw new ToolError(`skill "${name}" cannot be used: ${entry.problem}`);
      return `Skill ${entry.skill.name} (its files are in ${entry.skill.dir}):\n\n${entry.skill.body}`;
    },
  });
}

/** The system prompt's list of skills for the request's chat; nothing when there is none. */
export function skillsPromptSection(library: SkillLibrary) {
  return (request: ForwardFrame): string | undefined => {
    const skills = library.available(channelOf(request.platform, request.chat_id));
    if (skills.length === 0) return undefined;
    return [
      "Skills (instructions for particular jobs): when a request matches one, call the skill tool with its name first and follow what it says.",
      ...skills.map((s) => `- ${s.name}: ${s.description}${s.scope === "channel" ? " (this chat's)" : ""}`),
    ].join("\n");
  };
}
