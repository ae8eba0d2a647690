import type { HostCommand } from "../contracts/host-command.ts";
import type { Tool } from "../contracts/tool.ts";
import type { SkillLibrary } from "../skills/skill-library.ts";
import { channelOf } from "../workspace/workspace-layout.ts";
import type { CustomTools } from "./custom-tools.ts";

// /skills and /tools: what the workspace adds to the assistant, where each came from, and what
// failed to load (the owner's feedback after editing a file in skills/ or tools/).

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

export function toolsCommand(builtIn: readonly Tool[], custom: CustomTools): HostCommand {
  return {
    name: "tools",
    usage: "/tools",
    description: "the assistant's tools: built-in and custom (with their files), and load errors",
    run: async () => {
      const entries = custom.list();
      return [
        `Built-in: ${builtIn.map((tool) => tool.name).join(", ")}`,
        entries.length === 0 ? "Custom: none (add one as tools/<name>/index.ts in the workspace)" : "Custom:",
        ...entries.map((entry) =>
          entry.tool
            ? `• ${entry.name} — ${entry.tool.description} (${entry.path})`
            : `⚠️ ${entry.name} — ${entry.error} (${entry.path})`,
        ),
      ].join("\n");
    },
  };
}
