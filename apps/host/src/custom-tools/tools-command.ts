import type { HostCommand } from "../contracts/host-command.ts";
import type { Tool } from "../contracts/tool.ts";
import type { CustomTools } from "./custom-tools.ts";

// /tools: the assistant's tools, built in and from the workspace's tools/, and any that failed to
// load (the owner's feedback after editing a file there).

export function toolsCommand(builtIn: readonly Tool[], custom: CustomTools): HostCommand {
  return {
    name: "tools",
    usage: "/tools",
    description: "the assistant's tools: built-in and custom (with their files), and load errors",
    run: async () => {
      await custom.current(); // an edit the watcher missed is loaded before it is listed
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
