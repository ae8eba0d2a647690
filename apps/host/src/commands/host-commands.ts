import type { CommandInfo } from "@phonework/protocol";

// Commands the host answers directly, without the model.

export const HOST_COMMANDS: CommandInfo[] = [
  { usage: "/shell <command>", description: "run a shell command directly (no AI)" },
  { usage: "/tasks", description: "background tasks: running and recent" },
  { usage: "/stop", description: "stop your running request and its commands" },
];

export type HostCommand =
  | { name: "shell"; command: string }
  | { name: "tasks" }
  | { name: "stop" }
  | { name: "help" }
  | { name: "unknown"; word: string };

export function parseHostCommand(text: string): HostCommand | undefined {
  const match = /^\/([a-z_]+)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return undefined;
  const word = (match[1] ?? "").toLowerCase();
  const rest = (match[2] ?? "").trim();
  switch (word) {
    case "shell":
      return { name: "shell", command: rest };
    case "tasks":
      return { name: "tasks" };
    case "stop":
      return { name: "stop" };
    case "help":
      return { name: "help" };
    default:
      return { name: "unknown", word };
  }
}

export function hostHelpText(nodeId: string, toolNames: string[]): string {
  const width = Math.max(...HOST_COMMANDS.map((c) => c.usage.length));
  return [
    `Commands on ${nodeId}:`,
    ...HOST_COMMANDS.map((c) => `${c.usage.padEnd(width)} — ${c.description}`),
    "",
    `Assistant tools: ${toolNames.join(", ") || "none (no model configured)"}`,
    "Anything else is answered by the assistant.",
  ].join("\n");
}
