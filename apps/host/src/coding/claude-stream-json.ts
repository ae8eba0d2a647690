import { z } from "zod";
import { clipDetail, type DetailKind, RESULT_DETAIL_MAX, toolCallDetail } from "../contracts/turn-detail.ts";

// The lines `claude -p --output-format stream-json --verbose` prints, as far as PhoneWork reads
// them. Unknown line types and extra fields are ignored: the CLI adds fields between versions.

const ContentBlock = z.looseObject({ type: z.string() });

export const StreamLine = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("system"),
    subtype: z.string().optional(),
    session_id: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal("assistant"),
    session_id: z.string().optional(),
    message: z.looseObject({ content: z.array(ContentBlock).default([]) }),
  }),
  z.looseObject({
    type: z.literal("user"),
    session_id: z.string().optional(),
    // The tools' results come back as the user's turn (tool_result blocks).
    message: z.looseObject({ content: z.union([z.array(ContentBlock), z.string()]).default([]) }).optional(),
  }),
  z.looseObject({
    type: z.literal("result"),
    subtype: z.string().optional(),
    is_error: z.boolean().default(false),
    result: z.string().optional(),
    session_id: z.string().optional(),
    errors: z.array(z.unknown()).optional(),
  }),
]);
export type StreamLine = z.infer<typeof StreamLine>;

export function parseStreamLine(line: string): StreamLine | undefined {
  if (!line.trim().startsWith("{")) return undefined;
  try {
    const parsed = StreamLine.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const clip = (text: string, max = 90) => {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
};

/** A short status line for a tool Claude is using (Bash: the command; Edit: the file; plans). */
export function describeToolUse(name: string, input: Record<string, unknown>): string {
  const str = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : "");
  switch (name) {
    case "Bash":
      return `running: ${clip(str("command"))}`;
    case "Edit":
    case "MultiEdit":
    case "Write":
    case "Read":
      return `${name.toLowerCase()}: ${clip(str("file_path"))}`;
    case "Grep":
    case "Glob":
      return `${name.toLowerCase()}: ${clip(str("pattern"))}`;
    case "TodoWrite": {
      const todos = Array.isArray(input.todos) ? (input.todos as Array<Record<string, unknown>>) : [];
      const current = todos.find((t) => t.status === "in_progress") ?? todos[0];
      return current ? `plan: ${clip(String(current.content ?? current.activeForm ?? ""))}` : "updating plan";
    }
    default:
      return `using ${name}`;
  }
}

/** Status lines for one assistant message: each tool it calls. */
export function progressLines(line: StreamLine): string[] {
  if (line.type !== "assistant") return [];
  return line.message.content.flatMap((block) =>
    block.type === "tool_use" && typeof block.name === "string"
      ? [describeToolUse(block.name, (block.input as Record<string, unknown>) ?? {})]
      : [],
  );
}

/** A tool_result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (block && typeof block === "object" && "text" in block ? String(block.text) : ""))
    .join("\n");
}

/** The turn's details in one line: each tool call (assistant) and each tool's clipped result (user). */
export function detailLines(line: StreamLine): Array<{ kind: DetailKind; text: string }> {
  if (line.type === "assistant")
    return line.message.content.flatMap((block) =>
      block.type === "tool_use" && typeof block.name === "string"
        ? [{ kind: "tool" as const, text: toolCallDetail(block.name, block.input ?? {}) }]
        : [],
    );
  if (line.type !== "user" || !line.message || typeof line.message.content === "string") return [];
  return line.message.content.flatMap((block) =>
    block.type === "tool_result"
      ? [{ kind: "result" as const, text: clipDetail(resultText(block.content), RESULT_DETAIL_MAX) }]
      : [],
  );
}
