import type { PeerNode } from "@phonework/protocol";
import { z } from "zod";
import type { DetailSink } from "./turn-detail.ts";

// A tool the assistant can call. Its arguments are a zod schema: the same schema validates
// the model's call and produces the JSON schema the model is shown.

export interface OutgoingFile {
  name: string;
  data: Buffer;
  mimeType?: string;
}

export interface ToolContext {
  signal: AbortSignal;
  userId: string;
  chatId: string;
  platform: string;
  progress(text: string): void;
  /** The turn's details (tool calls, results, usage); absent when the chat does not show them. */
  detail?: DetailSink;
  /** Delivers a file to the user's chat. */
  sendFile(file: OutgoingFile): Promise<void>;
  /** The model's id for this call, recorded by tools whose effects outlive the turn (schedules). */
  toolCallId?: string;
  /** The user's other nodes, as the router listed them with the request (for delegate). */
  peers?: PeerNode[];
  /** A worker's scratch directory: its commands may write there (in place of the chat's scratch/). */
  scratchDir?: string;
  /** The forwarded request this turn answers (`forward.id`): a plan started in it names it. */
  requestId?: string;
  /** A subtask from another node: its commands see only this chat's directory, none of the user's chats. */
  isolated?: boolean;
}

/** A failure the model (or user) should read as-is: bad path, blocked command, missing file. */
export class ToolError extends Error {
  override readonly name = "ToolError";
}

/** A tool result that is also the turn's answer, passed to the user verbatim (a coding agent's reply). */
export interface FinalAnswer {
  final: string;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  execute(args: z.output<S>, ctx: ToolContext): Promise<string | FinalAnswer>;
  /** One short line for the progress message, e.g. "running: git status". */
  describe?(args: z.output<S>): string;
  /** The JSON schema the model is shown, when it is not made from `schema` (a custom tool's own). */
  parameters?: Record<string, unknown>;
}

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool {
  return tool as unknown as Tool;
}

export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export function toolSpec(tool: Tool): ToolSpec {
  const { $schema: _drop, ...parameters } =
    tool.parameters ?? (z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>);
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}

/** "timeout: Too big: expected number to be <=120; command: Required" */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "arguments"}: ${issue.message}`).join("; ");
}
