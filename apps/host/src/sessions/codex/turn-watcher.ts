// Follows one Codex turn through the app-server's notifications: status lines for progress,
// the agent's messages, and the end of the turn.

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

export class TurnWatcher {
  turnId: string | undefined;
  private readonly messages: string[] = [];
  private lastPlanLine = "";
  readonly done: Promise<TurnEnd>;
  private finish!: (end: TurnEnd) => void;

  constructor(
    readonly owner: { userId: string; chatId: string; platform: string; project: string },
    readonly signal: AbortSignal,
    private readonly onProgress: (line: string) => void,
  ) {
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  onNotification(method: string, params: Params): void {
    if (this.turnId && typeof params.turnId === "string" && params.turnId !== this.turnId) return;
    switch (method) {
      case "item/started": {
        const line = describeItem((params.item as Params) ?? {});
        if (line) this.onProgress(line);
        return;
      }
      case "item/completed": {
        const item = (params.item as Params) ?? {};
        if (item.type === "agentMessage" && str(item.text).trim()) this.messages.push(str(item.text));
        return;
      }
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
        if (params.willRetry) this.onProgress(`retrying: ${clip(message)}`);
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
    this.finish(end);
  }
}
