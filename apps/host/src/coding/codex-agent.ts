import { join } from "node:path";
import { formatDuration, type Logger } from "@phonework/runtime";
import type { ApprovalBroker } from "./approval-broker.ts";
import { CodexAppServer } from "./codex-app-server.ts";
import type { JsonRpcProcess } from "./codex-json-rpc.ts";
import { codexThreads } from "./codex-threads.ts";
import { type TurnEnd, TurnWatcher } from "./codex-turn-watcher.ts";
import type { CodingAgent, TurnOutcome, TurnRequest, TurnResult } from "./coding-agent.ts";

// Codex through one long-lived `codex app-server` per host (JSON-RPC over stdio). Threads are
// started or resumed per session; approval requests go to the user's chat and are never left
// unanswered; /stop sends turn/interrupt and, past the deadline, restarts the app-server. A turn
// that cannot reach the model provider is interrupted the same way and fails with its error.

export interface CodexAgentOptions {
  bin: string;
  approvalPolicy: string;
  sandbox: string;
  stopGraceMs: number;
  /** A turn with no model output this long after it started, while Codex retries the provider, fails. */
  connectTimeoutMs: number;
  approvals: ApprovalBroker;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

/**
 * How a turn ended, from its end and, if it was cut off for not reaching the provider, the
 * sentence saying so. A turn Codex completed anyway keeps its answer.
 */
export function turnOutcome(end: TurnEnd, unreachable: string | undefined): TurnOutcome {
  if (unreachable !== undefined && end.status !== "completed")
    return { ok: false, stopped: false, text: unreachable };
  switch (end.status) {
    case "completed":
      return { ok: true, stopped: false, text: end.text || "(Codex finished without a message)" };
    case "interrupted":
      return { ok: false, stopped: true, text: "⏹️ Stopped." };
    default:
      return { ok: false, stopped: false, text: end.error ?? "the turn failed" };
  }
}

export function createCodexAgent(options: CodexAgentOptions): CodingAgent {
  const { logger } = options;
  const configFile = options.env.CODEX_HOME
    ? join(options.env.CODEX_HOME, "config.toml")
    : "~/.codex/config.toml (or $CODEX_HOME/config.toml)";
  const unreachableText = (providerError: string) =>
    `Codex could not reach its model provider within ${formatDuration(options.connectTimeoutMs)} (${providerError}): check the provider (model_provider, base_url, API key) in ${configFile}.`;
  const watchers = new Map<string, TurnWatcher>();
  /** Each thread's last turn (bounded: the oldest thread forgotten first). */
  const lastTurns = new Map<string, string>();
  const server = new CodexAppServer(options, watchers);
  const ensureServer = () => server.rpc();

  return {
    name: "codex",
    threads: codexThreads(ensureServer),
    async runTurn(request): Promise<TurnResult> {
      let rpc = await ensureServer();
      let opened: Awaited<ReturnType<typeof openThread>>;
      try {
        opened = await openThread(rpc, request, options);
      } catch (error) {
        // The app-server died before this turn began (it is restarted on demand): retry once.
        if (rpc.alive) throw error;
        rpc = await ensureServer();
        opened = await openThread(rpc, request, options);
      }
      const { threadId, notice, model } = opened;
      const owner = {
        userId: request.session.user_id,
        chatId: request.session.chat_id,
        platform: request.session.platform,
        project: request.session.project,
      };
      const watcher = new TurnWatcher(
        owner,
        request.signal,
        request.onProgress,
        (providerError) => {
          logger.warn({ threadId, providerError }, "Codex cannot reach its model provider; ending the turn");
          void interrupt();
        },
        request.onDetail,
      );
      watcher.previousTurnId = lastTurns.get(threadId);
      watchers.set(threadId, watcher);
      const interrupt = async () => {
        const deadline = new Promise<"late">((resolve) =>
          setTimeout(() => resolve("late"), options.stopGraceMs).unref(),
        );
        if (watcher.turnId)
          void rpc.request("turn/interrupt", { threadId, turnId: watcher.turnId }).catch(() => undefined);
        if ((await Promise.race([watcher.done, deadline])) === "late") {
          logger.warn({ threadId }, "Codex did not stop in time; restarting the app-server");
          rpc.kill(options.stopGraceMs);
          watcher.end({ status: "interrupted", text: "", error: undefined });
        }
      };
      request.signal.addEventListener("abort", () => void interrupt(), { once: true });
      const connectTimer = setTimeout(() => watcher.connectDeadline(), options.connectTimeoutMs);
      connectTimer.unref();
      try {
        const started = await rpc.request<{ turn: { id: string } }>("turn/start", {
          threadId,
          // An image goes as its file: Codex reads and scales it itself.
          input: [
            { type: "text", text: request.prompt },
            ...(request.images ?? []).map((image) => ({ type: "localImage", path: image.path })),
          ],
          ...(request.model ? { model: request.model } : {}),
          ...(request.effort ? { effort: request.effort } : {}),
        });
        watcher.turnId = started.turn.id;
        // Either may have come before the turn had an id to interrupt.
        if (request.signal.aborted || watcher.unreachable !== undefined) void interrupt();
        const end = await watcher.done;
        if (end.status === "interrupted") await endCommands(rpc, threadId, watcher.commandIds, options);
        const unreachable = watcher.unreachable;
        const usage = watcher.usage.total(request.model ?? model ?? "codex");
        return {
          ...turnOutcome(end, unreachable === undefined ? undefined : unreachableText(unreachable)),
          agentSessionId: threadId,
          ...(notice ? { notice } : {}),
          ...(usage ? { usage } : {}),
        };
      } finally {
        clearTimeout(connectTimer);
        watchers.delete(threadId);
        rememberTurn(lastTurns, threadId, watcher.turnId);
      }
    },
    async close() {
      server.kill(options.stopGraceMs);
    },
  };
}

/** The session's thread: resumed, or started (afresh, saying so, when it cannot be resumed). */
async function openThread(
  rpc: JsonRpcProcess,
  request: TurnRequest,
  options: CodexAgentOptions,
): Promise<{ threadId: string; notice?: string; model?: string }> {
  const settings = {
    cwd: request.session.cwd,
    approvalPolicy: options.approvalPolicy,
    sandbox: options.sandbox,
  };
  const previous = request.session.agent_session_id;
  if (previous) {
    try {
      const resumed = await rpc.request<{ thread: { id: string }; model?: unknown }>("thread/resume", {
        threadId: previous,
        ...settings,
      });
      return { threadId: resumed.thread.id, ...modelOf(resumed) };
    } catch (error) {
      options.logger.warn(
        { previous, err: (error as Error).message },
        "Codex thread could not be resumed; starting a new one",
      );
      const started = await rpc.request<{ thread: { id: string }; model?: unknown }>(
        "thread/start",
        settings,
      );
      return {
        threadId: started.thread.id,
        ...modelOf(started),
        notice: "⚠️ The earlier Codex thread could not be resumed, so this is a fresh one.",
      };
    }
  }
  const started = await rpc.request<{ thread: { id: string }; model?: unknown }>("thread/start", settings);
  return { threadId: started.thread.id, ...modelOf(started) };
}

/** The model a thread runs on, as thread/start and thread/resume say (for its usage). */
const modelOf = (answer: { model?: unknown }) =>
  typeof answer.model === "string" && answer.model ? { model: answer.model } : {};

/**
 * Codex keeps a command that an interrupted turn was running alive as a background terminal
 * (once it has run for about a second): end those this turn started, bounded by the grace time.
 */
async function endCommands(
  rpc: JsonRpcProcess,
  threadId: string,
  commandIds: Set<string>,
  options: CodexAgentOptions,
): Promise<void> {
  if (!rpc.alive || commandIds.size === 0) return;
  const ended = [...commandIds].map((processId) =>
    rpc.request("thread/backgroundTerminals/terminate", { threadId, processId }).catch((error: Error) => {
      options.logger.warn(
        { threadId, processId, err: error.message },
        "could not end a command of a stopped turn",
      );
    }),
  );
  const late = new Promise((resolve) => setTimeout(resolve, options.stopGraceMs).unref());
  await Promise.race([Promise.all(ended), late]);
}

const REMEMBERED_THREADS = 256;

function rememberTurn(lastTurns: Map<string, string>, threadId: string, turnId: string | undefined): void {
  if (!turnId) return;
  lastTurns.delete(threadId);
  lastTurns.set(threadId, turnId);
  if (lastTurns.size > REMEMBERED_THREADS) lastTurns.delete(lastTurns.keys().next().value as string);
}
