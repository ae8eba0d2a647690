// Follows one Codex turn through the app-server's notifications: status lines for progress,
// the agent's messages, the end of the turn, and whether Codex ever reached its model provider;
// where the chat shows details, each item's start is a tool detail and a command's output a result.

import { clipDetail, type DetailSink, RESULT_DETAIL_MAX, TOOL_DETAIL_MAX } from "../contracts/turn-detail.ts";
import { CodexTurnUsage } from "./session-usage.ts";

export interface TurnEnd {
  status: "completed" | "interrupted" | "failed" | string;
  /** The agent's final message (the last agentMessage item). */
  text: string;
  error: string | undefined;
}

type Params = Record<string, unknown>;
const str = (value: unknown) => (typeof value === "string" ? value : "");
const clip = (text: string, max = 90) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * Notifications that show the model provider answered: the model's items and their deltas (not
 * the user's own message, which Codex echoes before calling the model), its plan, token usage.
 */
export function isModelActivity(method: string, params: Params): boolean {
  if (method.startsWith("item/")) return ((params.item as Params | undefined)?.type ?? "") !== "userMessage";
  return (
    method === "turn/plan/updated" || method === "turn/diff/updated" || method === "thread/tokenUsage/updated"
  );
}

/** A status line for an item Codex started, or undefined for items not worth a line. */
export function describeItem(item: Params): string | undefined {
  switch (item.type) {
    case "commandExecution":
      return `running: ${clip(str(item.command))}`;
    case "fileChange": {
      const changes = Array.isArray(item.changes) ? (item.changes as Params[]) : [];
      return `editing: ${clip(changes.map((c) => str(c.path)).join(", ") || "files")}`;
    }
    case "mcpToolCall":
    case "dynamicToolCall":
      return `using ${str(item.tool) || "a tool"}`;
    case "webSearch":
      return `searching: ${clip(str(item.query))}`;
    default:
      return undefined;
  }
}

/** The tool detail of an item: the command in full (up to the bound), else its status line. */
function itemDetail(item: Params, line: string): string {
  return item.type === "commandExecution" ? `shell: ${str(item.command)}` : line;
}

/** What a finished command printed, with its exit code; undefined for other items. */
function resultOf(item: Params): string | undefined {
  if (item.type !== "commandExecution") return undefined;
  const code = typeof item.exitCode === "number" ? `exit code ${item.exitCode}` : str(item.status);
  const output = str(item.aggregatedOutput).trim();
  return output ? `${code}\n${output}` : code;
}

export class TurnWatcher {
  turnId: string | undefined;
  /**
   * The thread's previous turn. Codex can report on it after it ended (a repeated token-usage report
   * was seen), before this turn has its id: such a notification is not this turn's.
   */
  previousTurnId: string | undefined;
  /** Codex's ids of the commands this turn started (to end the ones an interrupt leaves running). */
  readonly commandIds = new Set<string>();
  /** The turn's token counts, as Codex reports them. */
  readonly usage = new CodexTurnUsage();
  private readonly messages: string[] = [];
  private lastPlanLine = "";
  readonly done: Promise<TurnEnd>;
  private finish!: (end: TurnEnd) => void;
  private ended = false;
  // Reaching the provider: Codex retries an unreachable one for minutes ("Reconnecting…"), and a
  // slow one says nothing at all until it answers. Only the first, with its retry errors, is cut off.
  private reachedProvider = false;
  private connectDeadlinePassed = false;
  private retryError: string | undefined;
  private unreachableError: string | undefined;

  constructor(
    readonly owner: { userId: string; chatId: string; platform: string; project: string },
    readonly signal: AbortSignal,
    private readonly onProgress: (line: string) => void,
    /** Codex has not reached its model provider by the connect deadline and keeps retrying it. */
    private readonly onUnreachable: (providerError: string) => void = () => {},
    private readonly onDetail?: DetailSink,
  ) {
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  private isMine(turnId: string): boolean {
    return this.turnId ? turnId === this.turnId : turnId !== this.previousTurnId;
  }

  onNotification(method: string, params: Params): void {
    if (typeof params.turnId === "string" && !this.isMine(params.turnId)) return;
    if (!this.reachedProvider && isModelActivity(method, params)) this.reachedProvider = true;
    switch (method) {
      case "item/started": {
        const item = (params.item as Params) ?? {};
        if (item.type === "commandExecution" && str(item.processId)) this.commandIds.add(str(item.processId));
        const line = describeItem(item);
        if (line) this.onProgress(line);
        if (line && this.onDetail)
          this.onDetail("tool", clipDetail(itemDetail(item, line), TOOL_DETAIL_MAX, true));
        return;
      }
      case "item/completed": {
        const item = (params.item as Params) ?? {};
        if (item.type === "agentMessage" && str(item.text).trim()) this.messages.push(str(item.text));
        const result = this.onDetail && resultOf(item);
        if (result !== undefined) this.onDetail?.("result", clipDetail(result, RESULT_DETAIL_MAX));
        return;
      }
      case "thread/tokenUsage/updated":
        this.usage.add(params);
        return;
      case "turn/plan/updated": {
        const plan = Array.isArray(params.plan) ? (params.plan as Params[]) : [];
        const current =
          plan.find((s) => s.status === "inProgress") ?? plan.find((s) => s.status === "pending");
        const line = current ? `plan: ${clip(str(current.step))}` : "";
        if (line && line !== this.lastPlanLine) this.onProgress(line);
        this.lastPlanLine = line;
        return;
      }
      case "error": {
        const error = (params.error as Params) ?? {};
        const message = str(error.message) || "error";
        if (!params.willRetry) return; // the turn ends with this error in turn/completed
        this.onProgress(`retrying: ${clip(message)}`);
        // "Reconnecting... 2/5" is Codex's; the provider's own words are in additionalDetails.
        this.retryError = str(error.additionalDetails) || message;
        this.checkReach();
        return;
      }
      case "turn/completed": {
        const turn = (params.turn as Params) ?? {};
        if (this.turnId && str(turn.id) && turn.id !== this.turnId) return;
        const error = (turn.error as Params | null) ?? undefined;
        this.end({
          status: str(turn.status) || "completed",
          text: this.messages.at(-1) ?? "",
          error: error ? str(error.message) : undefined,
        });
        return;
      }
    }
  }

  /** Ends the turn from outside (the app-server died, the interrupt deadline passed). */
  end(end: TurnEnd): void {
    this.ended = true;
    this.finish(end);
  }

  /** Called CODEX_CONNECT_TIMEOUT_S after the turn started. */
  connectDeadline(): void {
    this.connectDeadlinePassed = true;
    this.checkReach();
  }

  /** The provider error, once the turn was found unable to reach its model provider. */
  get unreachable(): string | undefined {
    return this.unreachableError;
  }

  /**
   * Unreachable: past the deadline, no model output yet, and Codex said it is retrying. A turn
   * that already got an answer from the model is never cut off here, however long it runs.
   */
  private checkReach(): void {
    if (this.ended || this.signal.aborted || this.reachedProvider || !this.connectDeadlinePassed) return;
    if (this.retryError === undefined || this.unreachableError !== undefined) return;
    this.unreachableError = this.retryError;
    this.onUnreachable(this.retryError);
  }
}
