import type { HostCommand } from "../contracts/host-command.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import type { SkillLibrary } from "./skill-library.ts";

// /skills: the skills the assistant has here (the workspace's and this chat's), and what failed
// to load (the owner's feedback after editing a SKILL.md).

export function skillsCommand(library: SkillLibrary): HostCommand {
  return {
    name: "skills",
    usage: "/skills",
    description: "the assistant's skills (workspace and this chat's) and any that failed to load",
    run: async (_args, request) => {
      const entries = library.entries(channelOf(request.platform, request.chat_id));
      if (entries.length === 0) return "No skills. Add one as skills/<name>/SKILL.md in the workspace.";
      const lines = entries.map((entry) => {
        const where = entry.scope === "channel" ? " (this chat)" : "";
        return entry.skill
          ? `• ${entry.name}${where} — ${entry.skill.description}`
          : `⚠️ ${entry.name}${where} — ${entry.problem} (${entry.path})`;
      });
      const broken = entries.filter((entry) => !entry.skill).length;
      const header = `Skills: ${entries.length - broken} loaded${broken > 0 ? `, ${broken} not loaded` : ""}`;
      return [header, ...lines].join("\n");
    },
  };
}
