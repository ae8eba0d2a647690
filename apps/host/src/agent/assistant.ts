import type { Clock, Logger } from "@phonework/runtime";
import { KeyedQueue } from "@phonework/runtime";
import { formatCommandList, type HostCommand, parseCommand } from "../commands/host-command.ts";
import type { MessageHandler, RequestContext } from "../handler/message-handler.ts";
import type { SessionManager } from "../sessions/session-manager.ts";
import type { OutgoingFile, Tool, ToolContext } from "../tools/tool.ts";
import { runAgentLoop } from "./agent-loop.ts";
import type { HistoryStore } from "./history-store.ts";
import type { ModelClient } from "./model-client.ts";

// The mailboy: host commands first; then the user's active coding session (passthrough), or
// the model with tools. One assistant turn at a time per user, in order; /stop cancels the
// running turn (or coding turn) and everything it started.

export interface AssistantDeps {
  nodeId: string;
  /** Absent when no OPENAI_API_KEY is configured: commands and sessions still work. */
  model: ModelClient | undefined;
  tools: Tool[];
  unavailableTools: Record<string, string>;
  commands: HostCommand[];
  sessions: SessionManager;
  systemPrompt: () => string;
  maxSteps: number;
  history: HistoryStore;
  sendFile: (to: { userId: string; chatId: string; platform: string }, file: OutgoingFile) => Promise<void>;
  clock: Clock;
  logger: Logger;
}

export const noModelText = (nodeId: string) =>
  `No model is configured on node "${nodeId}", so it can only run commands (/help lists them). ` +
  "To chat, set OPENAI_API_KEY on the host — plus OPENAI_BASE_URL and OPENAI_MODEL for a non-OpenAI endpoint such as GLM — and restart it.";

/** The commands the assistant itself answers, beside those passed in. */
export const STOP_COMMAND = { usage: "/stop", description: "stop your running request and what it started" };
export const HELP_COMMAND = { usage: "/help", description: "this help" };

export function createAssistant(deps: AssistantDeps): MessageHandler {
  const queue = new KeyedQueue();
  const running = new Map<string, AbortController>();
  const byName = new Map(deps.commands.map((command) => [command.name, command]));

  const help = () =>
    [
      `Commands on ${deps.nodeId}:`,
      ...formatCommandList([...deps.commands, { ...STOP_COMMAND, name: "stop", run: async () => "" }]),
      "",
      `Assistant tools: ${deps.model ? deps.tools.map((t) => t.name).join(", ") : "none (no model configured)"}`,
      "Anything else is answered by the assistant, or by your active coding session.",
    ].join("\n");

  const stop = (userId: string): string => {
    const session = deps.sessions.stop(userId);
    if (session) return `⏹️ Stopping session #${session.id} (${session.agent} · ${session.project}).`;
    const current = running.get(userId);
    if (!current) return "Nothing is running.";
    current.abort(new Error("stopped by the user"));
    return "⏹️ Stopping your running request.";
  };

  const turn = async (
    request: { user_id: string; chat_id: string; platform: string; text: string },
    ctx: RequestContext,
  ) => {
    const userId = request.user_id;
    const stopper = new AbortController();
    running.set(userId, stopper);
    const context: ToolContext = {
      signal: AbortSignal.any([ctx.signal, stopper.signal]),
      userId,
      chatId: request.chat_id,
      platform: request.platform,
      progress: ctx.progress,
      sendFile: (file) =>
        deps.sendFile({ userId, chatId: request.chat_id, platform: request.platform }, file),
    };
    try {
      const history = deps.history.load(userId);
      const result = await runAgentLoop({
        model: deps.model as ModelClient,
        tools: deps.tools,
        unavailableTools: deps.unavailableTools,
        systemPrompt: deps.systemPrompt(),
        history,
        input: request.text,
        maxSteps: deps.maxSteps,
        context,
        logger: deps.logger.child({ userId }),
      });
      // Appended to what is stored now, not to the copy loaded above: a reminder sent during the
      // turn was added to the history meanwhile and must stay.
      deps.history.append(userId, result.added);
      deps.logger.info(
        { userId, stopReason: result.stopReason, toolCalls: result.toolCalls },
        "turn finished",
      );
      return result.reply;
    } finally {
      if (running.get(userId) === stopper) running.delete(userId);
    }
  };

  return {
    async handle(request, ctx) {
      const userId = request.user_id;
      const command = parseCommand(request.text);
      if (command) {
        if (command.name === "help") return help();
        if (command.name === "stop") return stop(userId);
        const handler = byName.get(command.name);
        if (!handler) return `Unknown command /${command.name}. /help lists the commands.`;
        return handler.run(command.args, request, ctx);
      }
      const session = deps.sessions.active(userId);
      if (session) {
        return deps.sessions.send(session, request.text, {
          userId,
          chatId: request.chat_id,
          platform: request.platform,
          signal: ctx.signal,
          progress: ctx.progress,
        });
      }
      if (!deps.model) return noModelText(deps.nodeId);
      return queue.run(userId, () => turn(request, ctx));
    },
  };
}
