import { z } from "zod";

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
  z.looseObject({ type: z.literal("user"), session_id: z.string().optional() }),
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
