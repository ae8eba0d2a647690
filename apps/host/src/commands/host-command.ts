import type { ForwardFrame } from "@phonework/protocol";
import type { RequestContext } from "../handler/message-handler.ts";

// A chat command the host answers itself. Commands run at once, never behind a queued turn,
// so /stop and /approve work while something else is running.

export interface HostCommand {
  name: string;
  usage: string;
  description: string;
  run(args: string, request: ForwardFrame, ctx: RequestContext): Promise<string>;
}

export function parseCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([a-z_]+)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return undefined;
  return { name: (match[1] ?? "").toLowerCase(), args: (match[2] ?? "").trim() };
}

export function formatCommandList(commands: HostCommand[]): string[] {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return commands.map((c) => `${c.usage.padEnd(width)} — ${c.description}`);
}
