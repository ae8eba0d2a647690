import { type SessionSummary, WireError } from "@phonework/protocol";
import { type Clock, KeyedQueue, type Logger } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { ReceivedImage } from "../contracts/received-image.ts";
import { ToolError } from "../contracts/tool.ts";
import type { DetailSink } from "../contracts/turn-detail.ts";
import type { TokenUsage } from "../contracts/usage-meter.ts";
import { finishOrDetach } from "../tasks/finish-or-detach.ts";
import { movedToBackgroundText } from "../tasks/format-tasks.ts";
import type { TaskRunner } from "../tasks/task-runner.ts";
import type { CodingAgent, TurnOutcome, TurnRequest, TurnResult } from "./coding-agent.ts";
import { projectDir } from "./project-dir.ts";
import type { AgentName, SessionRecord, SessionStore } from "./session-store.ts";

// Coding sessions on this host: a FIFO queue of turns per session, a bound on queued turns
// for the whole host (QUEUE_FULL past it), /stop, and turns that run long moved to the
// background task runner so the user is notified when they finish.

export interface SessionManagerOptions {
  store: SessionStore;
  agents: (name: AgentName) => CodingAgent;
  workingDir: string;
  maxPending: number;
  longTurnMs: number;
  tasks: TaskRunner;
  clock: Clock;
  logger: Logger;
  /** Called whenever the sessions or their busy state change (to tell the router). */
  onChange: () => void;
  /** Why an agent cannot run here (its CLI is not installed), or undefined when it can. */
  missingAgent?: (name: AgentName) => string | undefined;
  /** Told of every turn as it runs (the console's view of a session). */
  observer?: TurnObserver;
  /** What a turn spent, as its CLI reported it (usage/). */
  onUsage?: (session: SessionRecord, usage: TokenUsage) => void;
}

/** What a turn does, as it happens: its start, each progress line, its end; and a session closing. */
export interface TurnObserver {
  started(session: SessionRecord, prompt: string): void;
  progress(session: SessionRecord, line: string): void;
  ended(session: SessionRecord, outcome: TurnOutcome): void;
  closed(session: SessionRecord): void;
}

export interface SendContext extends ChatOwner {
  /** Cancels the turn while the user is still waiting for it (not once it runs in the background). */
  signal: AbortSignal;
  progress(line: string): void;
  /** The turn's details (the agent's tool calls and their results), where the chat shows them. */
  detail?: DetailSink;
  /** Called once the turn has its place in the session's queue (not when refused with QUEUE_FULL). */
  onQueued?(): void;
  /** Images that came with the prompt (the prompt names their files too). */
  images?: ReceivedImage[];
}

export class SessionManager {
  private readonly queue = new KeyedQueue();
  private readonly running = new Map<string, AbortController>();
  /** Every turn not yet finished (queued or running), so a shutdown can cancel them all. */
  private readonly unfinished = new Map<AbortController, Promise<unknown>>();
  private pending = 0;
  /** Turns queued or running, per session. */
  private readonly turnsBySession = new Map<string, number>();

  constructor(private readonly options: SessionManagerOptions) {}

  /** Turns queued or running on this host. */
  get pendingTurns(): number {
    return this.pending;
  }

  create(owner: ChatOwner, project: string, agent: AgentName): SessionRecord {
    return this.open(owner, agent, { project, cwd: () => projectDir(this.options.workingDir, project) });
  }

  /**
   * A new active session that continues the agent's own conversation `agentSessionId` (a Codex
   * thread) in `cwd`, a directory the caller found under WORKING_DIR (`project`, relative to it).
   */
  adopt(owner: ChatOwner, agent: AgentName, agentSessionId: string, project: string, cwd: string) {
    return this.open(owner, agent, { project, cwd: () => cwd, agent_session_id: agentSessionId });
  }

  /** The session (of any user) that continues this conversation of the agent, if one does. */
  continuing(agent: AgentName, agentSessionId: string): SessionRecord | undefined {
    return this.options.store.all().find((s) => s.agent === agent && s.agent_session_id === agentSessionId);
  }

  private open(
    owner: ChatOwner,
    agent: AgentName,
    place: { project: string; cwd: () => string; agent_session_id?: string },
  ): SessionRecord {
    const missing = this.options.missingAgent?.(agent);
    if (missing) throw new ToolError(missing);
    const { cwd, ...fields } = place;
    const now = this.options.clock.now();
    const session = this.options.store.create({
      ...fields,
      user_id: owner.userId,
      agent,
      cwd: cwd(),
      platform: owner.platform,
      chat_id: owner.chatId,
      created_at: now,
      last_activity: now,
    });
    this.options.onChange();
    return session;
  }

  list(userId: string): SessionRecord[] {
    return this.options.store.forUser(userId);
  }

  active(userId: string): SessionRecord | undefined {
    return this.options.store.active(userId);
  }

  /** The user's active session, else the one they used last. */
  current(userId: string): SessionRecord | undefined {
    return this.active(userId) ?? [...this.list(userId)].sort((a, b) => b.last_activity - a.last_activity)[0];
  }

  /** The user's session with this id, if it is theirs. */
  find(userId: string, id: string): SessionRecord | undefined {
    const session = this.options.store.get(id.replace(/^#/, ""));
    return session?.user_id === userId ? session : undefined;
  }

  /** Sets the model (and reasoning effort) every later turn of the session uses. */
  setModel(session: SessionRecord, model: string, effort: string | undefined): void {
    this.options.store.update(session.id, { model, ...(effort ? { effort } : {}) });
  }

  use(userId: string, id: string | undefined): void {
    this.options.store.setActive(userId, id);
    this.options.onChange(); // the router routes the user's next message by their active session
  }

  close(session: SessionRecord): void {
    this.running.get(session.id)?.abort(new Error("session closed"));
    this.options.store.remove(session.id);
    this.options.observer?.closed(session);
    this.options.onChange();
  }

  isBusy(id: string): boolean {
    return (this.turnsBySession.get(id) ?? 0) > 0;
  }

  /** Interrupts the running turn of one of the user's sessions (the active one first). */
  stop(userId: string): SessionRecord | undefined {
    const sessions = [this.active(userId), ...this.list(userId)].filter((s): s is SessionRecord =>
      Boolean(s),
    );
    const busy = sessions.find((s) => this.running.has(s.id));
    busy && this.running.get(busy.id)?.abort(new Error("stopped by the user"));
    return busy;
  }

  /** Cancels every queued and running turn and waits until they have ended (host shutdown). */
  async stopAll(): Promise<void> {
    for (const controller of this.unfinished.keys()) controller.abort(new Error("host stopping"));
    await Promise.all(this.unfinished.values());
  }

  summaries(): SessionSummary[] {
    return this.options.store.all().map((s) => ({
      id: s.id,
      agent: s.agent,
      project: s.project,
      busy: this.isBusy(s.id),
      last_activity: new Date(s.last_activity).toISOString(),
      user_id: s.user_id,
      active: this.active(s.user_id)?.id === s.id,
    }));
  }

  /** Sends a prompt to a session; resolves with the agent's answer (or a "running in the background" note). */
  async send(
    session: SessionRecord,
    prompt: string,
    ctx: SendContext,
    /** When to hand a still-running turn to the task runner (default LONG_TURN_S; Infinity: never). */
    detachAfterMs = this.options.longTurnMs,
  ): Promise<string> {
    const turn = this.enqueue(session, prompt, ctx);
    const done = await finishOrDetach(
      this.options.tasks,
      {
        result: turn.done,
        outcome: (outcome) => ({ ok: outcome.ok, stopped: outcome.stopped, output: outcome.text }),
        detach: (signal, onOutput) => {
          signal.addEventListener("abort", () => turn.cancel(new Error("task cancelled")), { once: true });
          turn.moveToBackground((line) => onOutput(`${line}\n`));
        },
      },
      {
        kind: "session",
        description: `${session.agent} · ${session.project}: ${prompt.slice(0, 80)}`,
        command: prompt,
        cwd: session.cwd,
        userId: ctx.userId,
        chatId: ctx.chatId,
        platform: ctx.platform,
      },
      detachAfterMs,
    );
    return done.detached ? movedToBackgroundText(detachAfterMs, done.task.id) : done.result.text;
  }

  /** Runs a prompt to its end, never moved to the background, and resolves with how it ended. */
  run(session: SessionRecord, prompt: string, ctx: SendContext): Promise<TurnOutcome> {
    return this.enqueue(session, prompt, ctx).done;
  }

  /** Queues a turn behind the session's earlier ones; QUEUE_FULL past MAX_PENDING. */
  private enqueue(session: SessionRecord, prompt: string, ctx: SendContext) {
    const { options } = this;
    if (this.pending >= options.maxPending) {
      // The router shows this message beside its own sentence for QUEUE_FULL: the limit is what
      // the user can act on (wait for fewer turns), so it is all the message says.
      throw new WireError("QUEUE_FULL", `queue full (max ${options.maxPending})`);
    }
    const ahead = this.turnsBySession.get(session.id) ?? 0;
    this.pending++;
    this.turnsBySession.set(session.id, ahead + 1);
    const controller = new AbortController();
    let progress = ctx.progress;
    let detail = ctx.detail;
    let background = false;
    const onUserCancel = () => !background && controller.abort(ctx.signal.reason);
    ctx.signal.addEventListener("abort", onUserCancel, { once: true });
    if (ahead > 0) progress(`queued behind ${ahead} turn(s) in session ${session.id}`);

    const done = this.queue
      .run(session.id, async (): Promise<TurnOutcome> => {
        if (controller.signal.aborted)
          return { ok: false, stopped: true, text: "⏹️ Stopped before it started." };
        this.running.set(session.id, controller);
        const { observer } = options;
        observer?.started(session, prompt);
        options.onChange();
        let outcome: TurnOutcome = { ok: false, stopped: false, text: "❌ the turn failed" };
        try {
          outcome = await this.runTurn(
            session,
            { prompt, ...(ctx.images ? { images: ctx.images } : {}) },
            controller.signal,
            (line) => {
              observer?.progress(session, line);
              progress(line);
            },
            (kind, text) => detail?.(kind, text),
          );
          return outcome;
        } finally {
          this.running.delete(session.id);
          observer?.ended(session, outcome);
        }
      })
      .finally(() => {
        this.pending--;
        const left = (this.turnsBySession.get(session.id) ?? 1) - 1;
        if (left > 0) this.turnsBySession.set(session.id, left);
        else this.turnsBySession.delete(session.id);
        this.unfinished.delete(controller);
        ctx.signal.removeEventListener("abort", onUserCancel);
        options.onChange();
      });

    this.unfinished.set(
      controller,
      done.catch(() => undefined),
    );
    ctx.onQueued?.();
    return {
      done,
      cancel: (reason: Error) => controller.abort(reason),
      /** The caller stopped waiting: its cancellation no longer ends the turn; progress goes here now. */
      moveToBackground: (onProgress: (line: string) => void) => {
        background = true;
        progress = onProgress;
        detail = undefined; // nobody waits on the turn's message any more: its output log is enough
      },
    };
  }

  private async runTurn(
    session: SessionRecord,
    input: Pick<TurnRequest, "prompt" | "images">,
    signal: AbortSignal,
    onProgress: (line: string) => void,
    onDetail: DetailSink,
  ): Promise<TurnOutcome> {
    const { options } = this;
    const current = options.store.get(session.id) ?? session;
    let result: TurnResult;
    try {
      result = await options.agents(current.agent).runTurn({
        session: current,
        ...input,
        signal,
        onProgress,
        onDetail,
        ...(current.model ? { model: current.model } : {}),
        ...(current.effort ? { effort: current.effort } : {}),
      });
    } catch (error) {
      options.logger.error({ err: error, sessionId: current.id }, "coding agent failed");
      return {
        ok: false,
        stopped: false,
        text: `❌ ${current.agent} could not run: ${(error as Error)?.message ?? error}`,
      };
    }
    if (result.usage) options.onUsage?.(current, result.usage);
    options.store.update(current.id, {
      last_activity: options.clock.now(),
      ...(result.agentSessionId ? { agent_session_id: result.agentSessionId } : {}),
    });
    const { ok, stopped } = result;
    options.logger.info({ sessionId: current.id, agent: current.agent, ok, stopped }, "coding turn finished");
    const failed = !ok && !stopped;
    const text = failed ? `❌ ${current.agent} reported an error:\n${result.text}` : result.text;
    return { ok, stopped, text: result.notice ? `${result.notice}\n\n${text}` : text };
  }
}
