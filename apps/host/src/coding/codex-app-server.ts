import type { Logger } from "@phonework/runtime";
import type { ApprovalBroker } from "./approval-broker.ts";
import { JsonRpcProcess } from "./codex-json-rpc.ts";
import type { TurnWatcher } from "./codex-turn-watcher.ts";

// The one long-lived `codex app-server` of a host (JSON-RPC over stdio), started on first use and
// again after it died. Its notifications go to the watcher of their thread; its approval requests
// go to the user's chat and are always answered.

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

export class CodexAppServer {
  private server: { rpc: JsonRpcProcess; ready: Promise<void> } | undefined;

  constructor(
    private readonly options: {
      bin: string;
      env: NodeJS.ProcessEnv;
      logger: Logger;
      approvals: ApprovalBroker;
    },
    /** The turn running in each thread, by thread id. */
    private readonly watchers: ReadonlyMap<string, TurnWatcher>,
  ) {}

  /** The running app-server, started (or restarted after it died) on demand. */
  async rpc(): Promise<JsonRpcProcess> {
    if (!this.server?.rpc.alive) this.server = this.start();
    await this.server.ready;
    return this.server.rpc;
  }

  kill(graceMs: number): void {
    this.server?.rpc.kill(graceMs);
  }

  private start() {
    const { logger } = this.options;
    const rpc = new JsonRpcProcess({
      bin: this.options.bin,
      args: ["app-server"],
      env: this.options.env,
      logger,
      onNotification: (method, raw) => {
        const params = (raw as Params) ?? {};
        const threadId = typeof params.threadId === "string" ? params.threadId : undefined;
        if (threadId) this.watchers.get(threadId)?.onNotification(method, params);
      },
      onRequest: (method, raw) => this.onRequest(method, raw),
      onExit: (reason) => {
        logger.warn({ reason }, "codex app-server exited");
        for (const watcher of this.watchers.values())
          watcher.end({ status: "failed", text: "", error: reason });
      },
    });
    const ready = rpc
      .request("initialize", {
        clientInfo: { name: "phonework", title: "PhoneWork", version: "0.1.0" },
        // For thread/backgroundTerminals/terminate: /stop must end the commands a turn started.
        capabilities: { experimentalApi: true },
      })
      .then(() => rpc.notify("initialized"));
    return { rpc, ready };
  }

  private async onRequest(method: string, raw: unknown): Promise<unknown> {
    const params = (raw as Params) ?? {};
    if (!APPROVAL_METHODS.has(method)) throw new Error(`PhoneWork does not handle ${method}`);
    const threadId = String(params.threadId ?? params.conversationId ?? "");
    const watcher = this.watchers.get(threadId);
    const approved = watcher
      ? await this.options.approvals.request(
          watcher.owner,
          describeApproval(params, watcher.owner.project),
          watcher.signal,
        )
      : false;
    this.options.logger.info({ method, threadId, approved }, "answered a Codex approval request");
    const legacy = method === "execCommandApproval" || method === "applyPatchApproval";
    return { decision: legacy ? (approved ? "approved" : "denied") : approved ? "accept" : "decline" };
  }
}
