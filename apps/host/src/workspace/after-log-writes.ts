import type { Tool } from "../contracts/tool.ts";

// The channel log is written at the end of each turn, or on a thread of its own once the host is
// busy, its lines gathered there for up to COALESCE_MS (jsonl-thread-writer.ts), so whatever may
// read a chat's log.jsonl waits for it first: every tool the model or a worker runs (file_ops reads
// it in this process; run_shell, custom tools and coding sessions read it in a child), and each
// message the assistant answers (a command, a coding session's turn). A wait with nothing in flight
// is a resolved promise; otherwise the lines not yet written are written at once on the main thread
// (a quiet host), or handed to the thread at once (never after COALESCE_MS) with one message asking
// for its answer.

/** What readers wait for: every line logged before the call is written. */
export interface LogWrites {
  flushed(): Promise<void>;
}

/** The tools, each waiting for the channel log's lines before it runs. */
export function afterLogWrites(tools: readonly Tool[], log: LogWrites): Tool[] {
  return tools.map((tool) => afterLogWritesTool(tool, log));
}

/**
 * The same for tools that come and go while the host runs (custom tools): each tool is wrapped at
 * its first call and its wrapper kept for as long as the tool lives, not made again at each call
 * (each message's prompt and turn ask for the tools).
 */
export function afterLogWritesEach(log: LogWrites): (tools: readonly Tool[]) => Tool[] {
  const wrapped = new WeakMap<Tool, Tool>();
  const wrap = (tool: Tool) => {
    let waiting = wrapped.get(tool);
    if (!waiting) {
      waiting = afterLogWritesTool(tool, log);
      wrapped.set(tool, waiting);
    }
    return waiting;
  };
  return (tools) => tools.map(wrap);
}

function afterLogWritesTool(tool: Tool, log: LogWrites): Tool {
  const waiting: Tool = {
    name: tool.name,
    description: tool.description,
    schema: tool.schema,
    execute: async (args, ctx) => {
      await log.flushed();
      return tool.execute(args, ctx);
    },
  };
  if (tool.describe) waiting.describe = tool.describe.bind(tool);
  if (tool.parameters) waiting.parameters = tool.parameters;
  return waiting;
}
