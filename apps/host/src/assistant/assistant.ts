import type { ForwardFrame } from "@phonework/protocol";
import type { Clock, Logger } from "@phonework/runtime";
import type { SessionManager } from "../coding/session-manager.ts";
import { formatCommandList, type HostCommand, parseCommand } from "../contracts/host-command.ts";
import type { MessageHandler, ReceivedFile, RequestContext } from "../contracts/message-handler.ts";
import type { TurnImages } from "../contracts/received-image.ts";
import type { ReplyValue } from "../contracts/reply.ts";
import type { OutgoingFile, Tool, ToolContext } from "../contracts/tool.ts";
import { usageDetail } from "../contracts/turn-detail.ts";
import type { UsageMeter } from "../contracts/usage-meter.ts";
import { type ImageInput, NO_IMAGES } from "../images/image-input.ts";
import { dataUrl, imageTurnText } from "../images/image-intake.ts";
import { type AgentRunResult, runAgentLoop } from "../model/agent-loop.ts";
import { meteredModel } from "../model/metered-model.ts";
import type { ModelClient } from "../model/model-client.ts";
import type { LogWrites } from "../workspace/after-log-writes.ts";
import type { ContextStore } from "../workspace/channel-context.ts";
import { MessageLine } from "./message-line.ts";

// The mailboy: host commands first; then the user's active coding session (passthrough), or
// the model with tools. Each user's messages, commands included, run one at a time in the order
// they came (see MessageLine), so the answers come back in that order; /stop and the other
// immediate commands act at once on what is running.

export interface AssistantDeps {
  nodeId: string;
  /** Absent when no OPENAI_API_KEY is configured: commands and sessions still work. */
  model: ModelClient | undefined;
  /** Read at each turn: custom tools come and go while the host runs. */
  tools: () => Tool[];
  unavailableTools: Record<string, string>;
  commands: HostCommand[];
  sessions: SessionManager;
  /** The user's running plans, which /stop cancels too. */
  plans?: { stop(userId: string): Array<{ id: string }> };
  /** Built for each turn: it names the user's other nodes the request came with. */
  systemPrompt: (request: ForwardFrame) => string;
  maxSteps: number;
  /** Each chat's context (context.jsonl), which the model continues. */
  history: ContextStore;
  /** The chats' logs, written at each turn's end (on a thread once busy): a message's command, session turn or model turn waits for them. */
  logWrites?: LogWrites;
  sendFile: (to: { userId: string; chatId: string; platform: string }, file: OutgoingFile) => Promise<void>;
  /** Images that come with a message, for the model or a coding session; absent: files go by path only. */
  images?: ImageInput;
  clock: Clock;
  logger: Logger;
  /** Counts each model call of a turn and refuses one past a limit. */
  meter?: UsageMeter;
  /** A usage line under each answer (USAGE_FOOTER). */
  footer?: boolean;
}

export const noModelText = (nodeId: string) =>
  `No model is configured on node "${nodeId}", so it can only run commands (/help lists them). ` +
  "To chat, set OPENAI_API_KEY on the host — plus OPENAI_BASE_URL and OPENAI_MODEL for a non-OpenAI endpoint such as GLM — and restart it.";

/** The commands the assistant itself answers, beside those passed in. */
export const STOP_COMMAND = { usage: "/stop", description: "stop your running request and what it started" };
export const HELP_COMMAND = { usage: "/help", description: "this help" };

type Command = NonNullable<ReturnType<typeof parseCommand>>;

export interface Assistant extends MessageHandler {
  /**
   * A turn the host starts itself (a workspace event): the model answers `request.text`, in the
   * user's line like their messages, never as a command or in their coding session.
   */
  wake(request: ForwardFrame, signal: AbortSignal): Promise<Pick<AgentRunResult, "reply" | "stopReason">>;
}

/** The assistant, as opposed to a handler handed in instead of it (tests, embedding). */
export const isAssistant = (handler: MessageHandler): handler is Assistant => "wake" in handler;

export function createAssistant(deps: AssistantDeps): Assistant {
  const line = new MessageLine();
  /** Each user's message now running in their line, until it is handed to a coding session. */
  const running = new Map<string, AbortController>();
  const byName = new Map(deps.commands.map((command) => [command.name, command]));

  const help = () => helpText(deps);

  // What the user is waiting for, and their plans; else a coding turn of theirs, also one in the background.
  const stop = (userId: string): string => {
    const current = running.get(userId);
    current?.abort(new Error("stopped by the user"));
    const plans = deps.plans?.stop(userId) ?? [];
    const stopped = [
      ...(current ? ["your running request"] : []),
      ...(plans.length > 0
        ? [`plan${plans.length > 1 ? "s" : ""} ${plans.map((p) => p.id).join(", ")} and its workers`]
        : []),
    ];
    if (stopped.length > 0) return `⏹️ Stopping ${stopped.join(" and ")}.`;
    const session = deps.sessions.stop(userId);
    if (session) return `⏹️ Stopping session #${session.id} (${session.agent} · ${session.project}).`;
    return "Nothing is running.";
  };

  const runCommand = (command: Command, request: ForwardFrame, ctx: RequestContext): Promise<ReplyValue> => {
    if (command.name === "help") return Promise.resolve(help());
    const handler = byName.get(command.name);
    if (!handler) return Promise.resolve(`Unknown command /${command.name}. /help lists the commands.`);
    return handler.run(command.args, request, ctx);
  };

  const turn = (request: ForwardFrame, ctx: RequestContext, images?: string[]) =>
    modelTurn(deps, request, ctx, images);

  /** One message at the head of the user's line. */
  const answer = async (
    request: ForwardFrame,
    command: Command | undefined,
    ctx: RequestContext,
    queuedIn: (queue: string) => void,
  ): Promise<ReplyValue> => {
    ctx.signal.throwIfAborted(); // given up on while it waited its turn
    const userId = request.user_id;
    const stopper = new AbortController();
    running.set(userId, stopper);
    const release = () => running.get(userId) === stopper && running.delete(userId);
    const mine: RequestContext = {
      signal: AbortSignal.any([ctx.signal, stopper.signal]),
      progress: ctx.progress,
      ...(ctx.detail ? { detail: ctx.detail } : {}),
      ...(ctx.received ? { received: ctx.received } : {}),
      queuedIn: (queue) => {
        release(); // in a coding session's queue: the session manager's /stop owns it from now on
        queuedIn(queue);
      },
    };
    try {
      // What it runs may read the chat's log (a command, a coding session, the model's tools): the
      // message's own line is written first. It is running meanwhile: a /stop now stops it.
      await deps.logWrites?.flushed();
      if (command) return await runCommand(command, request, mine);
      const session = deps.sessions.active(userId);
      if (session) {
        const images = await withImages(deps, request, mine, (files) => deps.images?.forSession(files));
        return await deps.sessions.send(session, images.text, {
          userId,
          chatId: request.chat_id,
          platform: request.platform,
          signal: mine.signal,
          progress: mine.progress,
          ...(mine.detail ? { detail: mine.detail } : {}),
          onQueued: () => mine.queuedIn?.(session.id),
          ...(images.images.length > 0 ? { images: images.images } : {}),
        });
      }
      if (!deps.model) return noModelText(deps.nodeId);
      const images = await withImages(deps, request, mine, (files) =>
        deps.images?.forModel(files, mine.signal),
      );
      return (await turn({ ...request, text: images.text }, mine, images.images.map(dataUrl))).reply;
    } finally {
      release();
    }
  };

  return {
    async handle(request, ctx) {
      const command = parseCommand(request.text);
      if (command?.name === "stop") return stop(request.user_id);
      if (command && byName.get(command.name)?.immediate) return runCommand(command, request, ctx);
      return line.run(request.user_id, {
        // A plain message follows the user's earlier ones into their active session's queue.
        joins: () => (command ? undefined : deps.sessions.active(request.user_id)?.id),
        run: (queuedIn) => answer(request, command, ctx, queuedIn),
      });
    },
    wake(request, signal) {
      if (!deps.model)
        return Promise.resolve({ reply: noModelText(deps.nodeId), stopReason: "provider_error" as const });
      return line.run(request.user_id, {
        joins: () => undefined,
        run: () => turn(request, { signal, progress: () => {} }),
      });
    },
  };
}

/** A turn of the model with tools, continuing the chat's context and adding to it. */
async function modelTurn(
  deps: AssistantDeps,
  request: ForwardFrame,
  ctx: RequestContext,
  images: string[] | undefined,
): Promise<AgentRunResult> {
  const userId = request.user_id;
  const context: ToolContext = {
    signal: ctx.signal,
    userId,
    chatId: request.chat_id,
    platform: request.platform,
    requestId: request.id,
    progress: ctx.progress,
    ...(ctx.detail ? { detail: ctx.detail } : {}),
    sendFile: (file) => deps.sendFile({ userId, chatId: request.chat_id, platform: request.platform }, file),
    ...(request.nodes ? { peers: request.nodes } : {}),
  };
  const owner = { userId, chatId: request.chat_id, platform: request.platform };
  const history = deps.history.load(owner);
  const model = deps.meter
    ? meteredModel(deps.model as ModelClient, deps.meter, { ...owner, kind: "turn" })
    : undefined;
  const result = await runAgentLoop({
    model: model ?? (deps.model as ModelClient),
    tools: deps.tools(),
    unavailableTools: deps.unavailableTools,
    systemPrompt: deps.systemPrompt(request),
    history,
    input: request.text,
    ...(images?.length ? { images } : {}),
    maxSteps: deps.maxSteps,
    context,
    logger: deps.logger.child({ userId }),
  });
  // Appended to what is stored now, not to the copy loaded above: a reminder sent during the
  // turn was added to the history meanwhile and must stay.
  deps.history.append(owner, result.added);
  deps.logger.info({ userId, stopReason: result.stopReason, toolCalls: result.toolCalls }, "turn finished");
  const spent = model?.spent;
  if (!deps.footer || !spent || spent.calls === 0) return result;
  const cost = spent.priced ? { costUsd: spent.costUsd } : {};
  return {
    ...result,
    reply: `${result.reply}\n\n📊 ${usageDetail({ input: spent.input, output: spent.output, ...cost })}`,
  };
}

/**
 * The message's images made ready by `prepare`, and its text: the image-only prompt when the user
 * wrote nothing, and a line for each image that could not be used, which the user is told too.
 */
async function withImages(
  deps: AssistantDeps,
  request: ForwardFrame,
  ctx: RequestContext,
  prepare: (files: ReceivedFile[]) => Promise<TurnImages> | undefined,
): Promise<TurnImages & { text: string }> {
  const received = ctx.received;
  if (!received) return { ...NO_IMAGES, text: request.text };
  const prepared = (await prepare(received.files)) ?? NO_IMAGES;
  for (const sentence of prepared.refused) ctx.progress(sentence);
  if (prepared.refused.length > 0)
    deps.logger.info({ refused: prepared.refused.length }, "images that could not be used");
  const text = imageTurnText(received.caption, request.text, prepared.images.length > 0);
  return { ...prepared, text: [text, ...prepared.refused.map((line) => `[${line}]`)].join("\n") };
}

/** /help: the commands here, the assistant's tools, and where anything else goes. */
function helpText(deps: AssistantDeps): string {
  const toolNames = deps.tools().map((t) => t.name);
  return [
    `Commands on ${deps.nodeId}:`,
    ...formatCommandList([...deps.commands, { ...STOP_COMMAND, name: "stop", run: async () => "" }]),
    "",
    `Assistant tools: ${deps.model ? toolNames.join(", ") : "none (no model configured)"}`,
    "Anything else is answered by the assistant, or by your active coding session.",
  ].join("\n");
}
