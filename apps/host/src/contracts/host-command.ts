import type { ForwardFrame } from "@phonework/protocol";
import type { RequestContext } from "./message-handler.ts";
import type { ReplyValue } from "./reply.ts";

// A chat command the host answers itself. A command waits its turn in the user's message line
// like any message, so its answer comes in order; an `immediate` one acts on what is running
// (/stop, /approve) and so runs at once.

export interface HostCommand {
  name: string;
  usage: string;
  description: string;
  /** Runs at once, not behind the user's earlier messages: what it answers may be waiting for it. */
  immediate?: boolean;
  run(args: string, request: ForwardFrame, ctx: RequestContext): Promise<ReplyValue>;
}

export function parseCommand(text: string): { name: string; args: string } | undefined {
  // A name may have inner hyphens: /forget-memory.
  const match = /^\/([a-z_]+(?:-[a-z_]+)*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return undefined;
  return { name: (match[1] ?? "").toLowerCase(), args: (match[2] ?? "").trim() };
}

export function formatCommandList(commands: HostCommand[]): string[] {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return commands.map((c) => `${c.usage.padEnd(width)} — ${c.description}`);
}
