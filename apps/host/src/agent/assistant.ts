import type { Clock, Logger } from "@phonework/runtime";
import { HOST_COMMANDS, hostHelpText, parseHostCommand } from "../commands/host-commands.ts";
import type { MessageHandler, RequestContext } from "../handler/message-handler.ts";
import { formatTaskList } from "../tasks/format-tasks.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import { executeShell, RunShellArgs } from "../tools/run-shell.ts";
import { type OutgoingFile, type Tool, type ToolContext, ToolError } from "../tools/tool.ts";
import { KeyedQueue } from "../util/keyed-queue.ts";
import { runAgentLoop } from "./agent-loop.ts";
import type { HistoryStore } from "./history-store.ts";
import type { ModelClient } from "./model-client.ts";

// The mailboy: host commands first, then the model with tools. One turn at a time per user,
// in order; /stop cancels the running turn and everything it started.

export interface AssistantDeps {
  nodeId: string;
  workingDir: string;
  /** Absent when no OPENAI_API_KEY is configured: commands still work. */
  model: ModelClient | undefined;
  tools: Tool[];
  unavailableTools: Record<string, string>;
  systemPrompt: () => string;
  maxSteps: number;
  history: HistoryStore;
  tasks: TaskRunner;
  sendFile: (to: { userId: string; chatId: string; platform: string }, file: OutgoingFile) => Promise<void>;
  clock: Clock;
  logger: Logger;
}

export const noModelText = (nodeId: string) =>
  `No model is configured on node "${nodeId}", so it can only run commands (/help lists them). ` +
  "To chat, set OPENAI_API_KEY on the host — plus OPENAI_BASE_URL and OPENAI_MODEL for a non-OpenAI endpoint such as GLM — and restart it.";

export function createAssistant(deps: AssistantDeps): MessageHandler & { commands: typeof HOST_COMMANDS } {
  const queue = new KeyedQueue();
  const running = new Map<string, AbortController>();

  const turn = async (
    userId: string,
    text: string,
    request: { chat_id: string; platform: string },
    ctx: RequestContext,
  ) => {
    const stop = new AbortController();
    running.set(userId, stop);
    const signal = AbortSignal.any([ctx.signal, stop.signal]);
    const context: ToolContext = {
      signal,
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
        input: text,
        maxSteps: deps.maxSteps,
        context,
        logger: deps.logger.child({ userId }),
      });
      deps.history.save(userId, [...history, ...result.added]);
      deps.logger.info(
        { userId, stopReason: result.stopReason, toolCalls: result.toolCalls },
        "turn finished",
      );
      return result.reply;
    } finally {
      if (running.get(userId) === stop) running.delete(userId);
    }
  };

  return {
    commands: HOST_COMMANDS,
    async handle(request, ctx) {
      const userId = request.user_id;
      const command = parseHostCommand(request.text);
      switch (command?.name) {
        case "help":
          return hostHelpText(
            deps.nodeId,
            deps.tools.map((t) => t.name),
          );
        case "tasks":
          return formatTaskList(deps.tasks.list(), deps.clock.now());
        case "stop": {
          const current = running.get(userId);
          if (!current) return "Nothing is running.";
          current.abort(new Error("stopped by the user"));
          return "⏹️ Stopping your running request.";
        }
        case "shell": {
          const args = RunShellArgs.safeParse({ command: command.command });
          if (!args.success) return "Usage: /shell <command>";
          try {
            return await executeShell(deps.workingDir, args.data, ctx.signal);
          } catch (error) {
            if (error instanceof ToolError) return `❌ ${error.message}`;
            throw error;
          }
        }
        case "unknown":
          return `Unknown command /${command.word}. /help lists the commands.`;
      }
      if (!deps.model) return noModelText(deps.nodeId);
      return queue.run(userId, () => turn(userId, request.text, request, ctx));
    },
  };
}
