import type { Clock } from "@phonework/runtime";
import { formatDuration } from "@phonework/runtime";
import type { ChatOwner } from "../contracts/chat-owner.ts";
import type { HostCommand } from "../contracts/host-command.ts";
import { ToolError } from "../contracts/tool.ts";
import type { ApprovalBroker } from "./approval-broker.ts";
import type { SessionManager } from "./session-manager.ts";
import { AgentName, type SessionRecord } from "./session-store.ts";

// /new, /sessions, /use, /close, /model, /approve, /deny: coding sessions from the chat.

export interface SessionCommandDeps {
  sessions: SessionManager;
  approvals: ApprovalBroker;
  defaultAgent: AgentName;
  clock: Clock;
  /** `/use thread <id>`: continue one of the agent's own conversations (see thread-commands.ts). */
  useThread?: (owner: ChatOwner, id: string) => Promise<string>;
}

const EFFORTS = ["minimal", "low", "medium", "high"];

export function describeSession(session: SessionRecord, busy: boolean, now: number): string {
  const state = busy ? "busy" : `idle ${formatDuration(now - session.last_activity)}`;
  return `#${session.id} ${session.agent} · ${session.project} (${state})`;
}

export function sessionCommands(deps: SessionCommandDeps): HostCommand[] {
  const { sessions } = deps;
  const owner = (request: { user_id: string; chat_id: string; platform: string }) => ({
    userId: request.user_id,
    chatId: request.chat_id,
    platform: request.platform,
  });
  return [
    {
      name: "new",
      usage: "/new <project> [claude|codex] [prompt]",
      description: "start a coding session in a project (your messages then go to it)",
      async run(args, request, ctx) {
        const [project, maybeAgent, ...rest] = args.split(/\s+/).filter(Boolean);
        if (!project) return "Usage: /new <project> [claude|codex] [prompt]";
        const agentParse = AgentName.safeParse(maybeAgent);
        const agent = agentParse.success ? agentParse.data : deps.defaultAgent;
        const prompt = (agentParse.success ? rest : [maybeAgent ?? "", ...rest]).join(" ").trim();
        let session: SessionRecord;
        try {
          session = sessions.create(owner(request), project, agent);
        } catch (error) {
          if (error instanceof ToolError) return `❌ ${error.message}`;
          throw error;
        }
        const started = `🆕 Session #${session.id}: ${agent} in ${project}. Your messages now go to it (/use off to talk to the assistant).`;
        if (!prompt) return started;
        ctx.progress(started);
        return sessions.send(session, prompt, {
          ...owner(request),
          signal: ctx.signal,
          progress: ctx.progress,
          ...(ctx.detail ? { detail: ctx.detail } : {}),
          onQueued: () => ctx.queuedIn?.(session.id),
        });
      },
    },
    {
      name: "sessions",
      usage: "/sessions",
      description: "your coding sessions (→ marks the active one)",
      async run(_args, request) {
        const mine = sessions.list(request.user_id);
        if (mine.length === 0) return "No coding sessions. Start one with /new <project> [claude|codex].";
        const active = sessions.active(request.user_id)?.id;
        const now = deps.clock.now();
        const lines = mine.map(
          (s) => `${s.id === active ? "→" : " "} ${describeSession(s, sessions.isBusy(s.id), now)}`,
        );
        return ["Sessions:", ...lines].join("\n");
      },
    },
    {
      name: "use",
      usage: "/use <id>|off|thread <id>",
      description: "send your messages to session <id>, to Codex thread <id>, or back to the assistant",
      async run(args, request) {
        if (args === "off" || args === "none") {
          sessions.use(request.user_id, undefined);
          return "Your messages go to the assistant again.";
        }
        if (/^thread(\s|$)/.test(args) && deps.useThread)
          return deps.useThread(owner(request), args.slice("thread".length).trim());
        const session = sessions.find(request.user_id, args);
        if (!session) return `No session #${args}. /sessions lists yours.`;
        sessions.use(request.user_id, session.id);
        return `→ Session #${session.id} (${session.agent} · ${session.project}) is active.`;
      },
    },
    {
      name: "close",
      usage: "/close <id>",
      description: "end a coding session",
      async run(args, request) {
        const session = args ? sessions.find(request.user_id, args) : sessions.active(request.user_id);
        if (!session) return `No session #${args}. /sessions lists yours.`;
        sessions.close(session);
        return `Closed session #${session.id} (${session.agent} · ${session.project}).`;
      },
    },
    {
      name: "model",
      usage: "/model <model> [effort]",
      description: "the model (and reasoning effort) your active session uses from now on",
      async run(args, request) {
        const session = sessions.active(request.user_id);
        if (!session) return "No active session. /sessions lists yours.";
        const [model, effort] = args.split(/\s+/).filter(Boolean);
        if (!model) return "Usage: /model <model> [minimal|low|medium|high]";
        if (effort && !EFFORTS.includes(effort)) return `Effort must be one of ${EFFORTS.join(", ")}.`;
        sessions.setModel(session, model, effort);
        return `Session #${session.id} will use model ${model}${effort ? ` with ${effort} effort` : ""}.`;
      },
    },
    {
      name: "approve",
      usage: "/approve <id>",
      description: "allow what a coding agent asked to do",
      immediate: true, // the agent's turn is waiting for it
      run: async (args, request) => deps.approvals.answer(request.user_id, args, true),
    },
    {
      name: "deny",
      usage: "/deny <id>",
      description: "refuse what a coding agent asked to do",
      immediate: true,
      run: async (args, request) => deps.approvals.answer(request.user_id, args, false),
    },
  ];
}
