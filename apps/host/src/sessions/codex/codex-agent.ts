import type { Logger } from "@phonework/runtime";
import type { ApprovalBroker } from "../approval-broker.ts";
import type { CodingAgent, TurnRequest, TurnResult } from "../coding-agent.ts";
import { JsonRpcProcess } from "./json-rpc-process.ts";
import { TurnWatcher } from "./turn-watcher.ts";

// Codex through one long-lived `codex app-server` per host (JSON-RPC over stdio). Threads are
// started or resumed per session; approval requests go to the user's chat and are never left
// unanswered; /stop sends turn/interrupt and, past the deadline, restarts the app-server.

export interface CodexAgentOptions {
  bin: string;
  approvalPolicy: string;
  sandbox: string;
  stopGraceMs: number;
  approvals: ApprovalBroker;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

type Params = Record<string, unknown>;
const APPROVAL_METHODS = new Set([
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "execCommandApproval",
  "applyPatchApproval",
]);

function describeApproval(params: Params, project: string): string {
  const command = Array.isArray(params.command) ? params.command.join(" ") : params.command;
  const reason = typeof params.reason === "string" && params.reason ? ` (${params.reason})` : "";
  if (typeof command === "string" && command) return `Codex in ${project} asks to run: ${command}${reason}`;
  return `Codex in ${project} asks to change files${reason}`;
}

export function createCodexAgent(options: CodexAgentOptions): CodingAgent {
  const { logger } = options;
  let server: { rpc: JsonRpcProcess; ready: Promise<void> } | undefined;
  const watchers = new Map<string, TurnWatcher>();

  const onRequest = async (method: string, raw: unknown): Promise<unknown> => {
    const params = (raw as Params) ?? {};
    if (!APPROVAL_METHODS.has(method)) throw new Error(`PhoneWork does not handle ${method}`);
    const threadId = String(params.threadId ?? params.conversationId ?? "");
    const watcher = watchers.get(threadId);
    const approved = watcher
      ? await options.approvals.request(
          watcher.owner,
          describeApproval(params, watcher.owner.project),
          watcher.signal,
        )
      : false;
    logger.info({ method, threadId, approved }, "answered a Codex approval request");
    const legacy = method === "execCommandApproval" || method === "applyPatchApproval";
    return { decision: legacy ? (approved ? "approved" : "denied") : approved ? "accept" : "decline" };
  };

  const start = () => {
    const rpc = new JsonRpcProcess({
      bin: options.bin,
      args: ["app-server"],
      env: options.env,
      logger,
      onNotification: (method, raw) => {
        const params = (raw as Params) ?? {};
        const threadId = typeof params.threadId === "string" ? params.threadId : undefined;
        if (threadId) watchers.get(threadId)?.onNotification(method, params);
      },
      onRequest,
      onExit: (reason) => {
        logger.warn({ reason }, "codex app-server exited");
        for (const watcher of watchers.values()) watcher.end({ status: "failed", text: "", error: reason });
      },
    });
    const ready = rpc
      .request("initialize", { clientInfo: { name: "phonework", title: "PhoneWork", version: "0.1.0" } })
      .then(() => rpc.notify("initialized"));
    return { rpc, ready };
  };

  /** The running app-server, started (or restarted after it died) on demand. */
  const ensureServer = async () => {
    if (!server?.rpc.alive) server = start();
    await server.ready;
    return server.rpc;
  };

  const openThread = async (
    rpc: JsonRpcProcess,
    request: TurnRequest,
  ): Promise<{ threadId: string; notice?: string }> => {
    const settings = {
      cwd: request.session.cwd,
      approvalPolicy: options.approvalPolicy,
      sandbox: options.sandbox,
    };
    const previous = request.session.agent_session_id;
    if (previous) {
      try {
        const resumed = await rpc.request<{ thread: { id: string } }>("thread/resume", {
          threadId: previous,
          ...settings,
        });
        return { threadId: resumed.thread.id };
      } catch (error) {
        logger.warn(
          { previous, err: (error as Error).message },
          "Codex thread could not be resumed; starting a new one",
        );
        const started = await rpc.request<{ thread: { id: string } }>("thread/start", settings);
        return {
          threadId: started.thread.id,
          notice: "⚠️ The earlier Codex thread could not be resumed, so this is a fresh one.",
        };
      }
    }
    const started = await rpc.request<{ thread: { id: string } }>("thread/start", settings);
    return { threadId: started.thread.id };
  };

  return {
    name: "codex",
    async runTurn(request): Promise<TurnResult> {
      let rpc = await ensureServer();
      let opened: Awaited<ReturnType<typeof openThread>>;
      try {
        opened = await openThread(rpc, request);
      } catch (error) {
        // The app-server died before this turn began (it is restarted on demand): retry once.
        if (rpc.alive) throw error;
        rpc = await ensureServer();
        opened = await openThread(rpc, request);
      }
      const { threadId, notice } = opened;
      const owner = {
        userId: request.session.user_id,
        chatId: request.session.chat_id,
        platform: request.session.platform,
        project: request.session.project,
      };
      const watcher = new TurnWatcher(owner, request.signal, request.onProgress);
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
      try {
        const started = await rpc.request<{ turn: { id: string } }>("turn/start", {
          threadId,
          input: [{ type: "text", text: request.prompt }],
          ...(request.model ? { model: request.model } : {}),
          ...(request.effort ? { effort: request.effort } : {}),
        });
        watcher.turnId = started.turn.id;
        if (request.signal.aborted) void interrupt();
        const end = await watcher.done;
        const withNotice = notice ? { notice } : {};
        if (end.status === "interrupted")
          return { text: "⏹️ Stopped.", isError: false, agentSessionId: threadId, ...withNotice };
        if (end.status === "failed") {
          return {
            text: end.error ?? "the turn failed",
            isError: true,
            agentSessionId: threadId,
            ...withNotice,
          };
        }
        return {
          text: end.text || "(Codex finished without a message)",
          isError: false,
          agentSessionId: threadId,
          ...withNotice,
        };
      } finally {
        watchers.delete(threadId);
      }
    },
    async close() {
      server?.rpc.kill(options.stopGraceMs);
    },
  };
}
