import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../contracts/tool.ts";
import type { SessionManager } from "./session-manager.ts";
import { AgentName } from "./session-store.ts";

// coding_session: lets the assistant start a Claude Code / Codex session or message one when
// the user asks in plain words. The agent's answer goes to the user verbatim.

export const CodingSessionArgs = z.object({
  action: z.enum(["start", "send"]),
  project: z.string().optional().describe("start: project folder under the working directory"),
  agent: AgentName.optional().describe("start: claude (default) or codex"),
  prompt: z.string().optional().describe("what to ask the coding agent"),
  session_id: z.string().optional().describe("send: the session (default: the active or most recent one)"),
});

export function createCodingSessionTool(sessions: SessionManager, defaultAgent: AgentName): Tool {
  return defineTool({
    name: "coding_session",
    description:
      "Work on code with a coding agent (Claude Code or Codex) in a project. action=start creates a session in `project` " +
      "(it becomes the user's active session) and sends `prompt` if given; action=send sends `prompt` to a session. " +
      "The agent's answer is shown to the user as is.",
    schema: CodingSessionArgs,
    describe: (args) =>
      `${args.action === "start" ? "starting" : "messaging"} a coding session ${args.project ?? ""}`.trim(),
    async execute(args, ctx) {
      const owner = { userId: ctx.userId, chatId: ctx.chatId, platform: ctx.platform };
      const session =
        args.action === "start"
          ? sessions.create(owner, args.project ?? "", args.agent ?? defaultAgent)
          : args.session_id
            ? sessions.find(ctx.userId, args.session_id)
            : sessions.current(ctx.userId);
      if (!session) throw new ToolError("no such session; start one with action=start");
      if (!args.prompt)
        return `Session #${session.id} (${session.agent} · ${session.project}) is ready and active.`;
      const answer = await sessions.send(session, args.prompt, {
        ...owner,
        signal: ctx.signal,
        progress: ctx.progress,
        ...(ctx.detail ? { detail: ctx.detail } : {}),
      });
      return { final: answer };
    },
  });
}
