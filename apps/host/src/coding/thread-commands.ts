import { realpathSync } from "node:fs";
import { relative } from "node:path";
import type { Clock } from "@phonework/runtime";
import { formatAgo } from "@phonework/runtime";
import type { HostCommand } from "../contracts/host-command.ts";
import type { Reply } from "../contracts/reply.ts";
import { ToolError } from "../contracts/tool.ts";
import { isInside } from "../os/path-guard.ts";
import type { AgentThread, AgentThreads } from "./coding-agent.ts";
import { placeInside } from "./project-dir.ts";
import type { SessionManager } from "./session-manager.ts";

// /threads and /use thread <id>: Codex's own saved conversations on this machine (begun in the
// chat or in a terminal), listed and continued from the chat as a Codex session.

export interface ThreadCommandDeps {
  sessions: SessionManager;
  /** Codex's threads, or why they cannot be read here (no Codex CLI). */
  codexThreads: () => { threads: AgentThreads } | { unavailable: string };
  workingDir: string;
  clock: Clock;
}

/** How many threads /threads shows (one button each fits the wire's row limit). */
export const THREADS_SHOWN = 20;
const THREAD_ID = /^[A-Za-z0-9:_-]{1,128}$/;

const clip = (text: string, max: number) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
const titleOf = (thread: AgentThread) => clip(thread.title, 60) || "(no messages yet)";
const failed = (what: string, error: unknown) =>
  `❌ Codex could not ${what}: ${(error as Error)?.message ?? String(error)}`;

export function threadCommands(deps: ThreadCommandDeps): HostCommand[] {
  /** The thread's directory, relative to WORKING_DIR when it lies there. */
  const where = (root: string, cwd: string | undefined) => {
    if (!cwd) return "";
    return isInside(root, cwd) ? ` · ${relative(root, cwd) || "."}` : ` · ${cwd}`;
  };
  return [
    {
      name: "threads",
      usage: "/threads",
      description: "Codex threads on this node, newest first (/use thread <id> continues one)",
      async run(_args, request) {
        const codex = deps.codexThreads();
        if ("unavailable" in codex) return `❌ ${codex.unavailable}`;
        let list: AgentThread[];
        try {
          list = await codex.threads.list(THREADS_SHOWN);
        } catch (error) {
          return failed("list its threads", error);
        }
        if (list.length === 0)
          return "No Codex threads on this node yet. Start one with /new <project> codex.";
        const mine = deps.sessions.active(request.user_id);
        const attached = mine?.agent === "codex" ? mine.agent_session_id : undefined;
        const now = deps.clock.now();
        const root = realpathSync(deps.workingDir);
        const lines = list.map(
          (t) =>
            `${t.id === attached ? "→" : "•"} ${t.id} — ${titleOf(t)} (${formatAgo(now - t.updatedAt)}${where(root, t.cwd)})`,
        );
        const reply: Reply = {
          text: ["Codex threads, newest first:", ...lines, "", "/use thread <id> continues one here."].join(
            "\n",
          ),
          // Only ids /use thread accepts get a button (and so every command fits the wire's limit).
          buttons: list
            .filter((t) => THREAD_ID.test(t.id))
            .map((t) => [{ label: clip(`Use: ${titleOf(t)}`, 64), command: `/use thread ${t.id}` }]),
        };
        return reply;
      },
    },
  ];
}

/**
 * Makes the user's active session the one continuing Codex thread `id`: theirs if they already
 * have one on it, else a new Codex session in the thread's directory (when under WORKING_DIR).
 * An unknown thread, or one another user's session continues, changes nothing.
 */
export async function useThread(
  deps: ThreadCommandDeps,
  owner: { userId: string; chatId: string; platform: string },
  id: string,
): Promise<string> {
  if (!THREAD_ID.test(id)) return "Usage: /use thread <id> (/threads lists them)";
  const codex = deps.codexThreads();
  if ("unavailable" in codex) return `❌ ${codex.unavailable}`;
  let thread: AgentThread | undefined;
  try {
    thread = await codex.threads.read(id);
  } catch (error) {
    return failed("look up the thread", error);
  }
  if (!thread) return `❌ No Codex thread ${id} on this node. /threads lists them.`;
  const existing = deps.sessions.continuing("codex", thread.id);
  if (existing && existing.user_id !== owner.userId)
    return `❌ Codex thread ${thread.id} is already continued by another user's session.`;
  if (existing) {
    deps.sessions.use(owner.userId, existing.id);
    return `→ Session #${existing.id} (codex · ${existing.project}) continues Codex thread ${thread.id} — ${titleOf(thread)}. It is active.`;
  }
  const { project, cwd } = placeInside(deps.workingDir, thread.cwd);
  try {
    const session = deps.sessions.adopt(owner, "codex", thread.id, project, cwd);
    return `🧵 Session #${session.id} (codex · ${project}) continues Codex thread ${thread.id} — ${titleOf(thread)}. Your messages now go to it (/use off to talk to the assistant).`;
  } catch (error) {
    if (error instanceof ToolError) return `❌ ${error.message}`;
    throw error;
  }
}
