import type { PlatformCommand } from "../platforms/platform-adapter.ts";
import type { NodeInfo } from "../registry/node-info.ts";

// The command menu a platform shows (Telegram's "/" menu): the router's own commands, then every
// command the connected nodes offer, each once. Republished when a node brings a new one.

const ROUTER_COMMANDS: PlatformCommand[] = [
  { command: "nodes", description: "List your nodes" },
  { command: "node", description: "Switch your active node" },
  { command: "result", description: "Answers replace the progress message, or follow it" },
  { command: "details", description: "Tool calls and usage: in a thread, inline, or off" },
  { command: "console", description: "A one-time link to the web console" },
  { command: "voice", description: "Answers read aloud too: on or off" },
  { command: "retry", description: "Hear your last voice note again" },
  { command: "help", description: "Commands of the router and your node" },
];

/** "/new <project> [claude|codex]" → "new"; "/forget-memory [yes]" → "forget-memory", not "forget". */
const nameOf = (usage: string) => /^\/([a-z0-9_-]+)/i.exec(usage.trim())?.[1]?.toLowerCase();

export function commandMenu(nodes: readonly NodeInfo[]): PlatformCommand[] {
  const menu = new Map(ROUTER_COMMANDS.map((entry) => [entry.command, entry]));
  for (const node of nodes)
    for (const command of node.commands) {
      const name = nameOf(command.usage);
      if (name && !menu.has(name))
        menu.set(name, { command: name, description: command.description || name });
    }
  return [...menu.values()];
}
