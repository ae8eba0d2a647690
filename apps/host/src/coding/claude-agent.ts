import { type ChildProcessByStdio, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "@phonework/runtime";
import type { ReceivedImage } from "../contracts/received-image.ts";
import type { TokenUsage } from "../contracts/usage-meter.ts";
import { killTree } from "../os/process-tree.ts";
import { detailLines, parseStreamLine, progressLines } from "./claude-stream-json.ts";
import type { CodingAgent, TurnRequest, TurnResult } from "./coding-agent.ts";
import { claudeResultUsage } from "./session-usage.ts";

// Claude Code, headless: one `claude -p --output-format stream-json --verbose` process per
// turn, run in the project directory (there is no --cwd flag), resumed with --resume.
// Success is judged by `is_error` on the final `result` line, not by `subtype`.

export interface ClaudeAgentOptions {
  bin: string;
  permissionMode: string;
  allowedTools: string[];
  stopGraceMs: number;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

interface RunOutcome {
  sessionId: string | undefined;
  result: { text: string; isError: boolean } | undefined;
  /** The result line's `errors` (e.g. "No conversation found with session ID: …"). */
  errors: string;
  stderr: string;
  exitCode: number | null;
  aborted: boolean;
  usage: TokenUsage | undefined;
}

const NO_CONVERSATION = /No conversation found/i;

/** A user message in `--input-format stream-json`: the text, then each image as a base64 block. */
export function userMessage(prompt: string, images: readonly ReceivedImage[]) {
  return {
    type: "user",
    message: {
      role: "user",
      content: [
        { type: "text", text: prompt },
        ...images.map((image) => ({
          type: "image",
          source: { type: "base64", media_type: image.mimeType, data: image.base64 },
        })),
      ],
    },
  };
}

export function createClaudeAgent(options: ClaudeAgentOptions): CodingAgent {
  const childEnv = () => {
    const env = { ...options.env };
    delete env.CLAUDECODE; // a nested Claude Code refuses to start when it thinks it runs inside another
    return env;
  };

  const run = (request: TurnRequest, resumeId: string | undefined): Promise<RunOutcome> =>
    new Promise((resolve) => {
      // With images, the prompt goes on stdin as a stream-json user message whose image blocks
      // carry the scaled copies; without, as an argument, as it always did.
      const images = request.images ?? [];
      const args =
        images.length > 0
          ? ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
          : ["-p", request.prompt, "--output-format", "stream-json", "--verbose"];
      args.push("--permission-mode", options.permissionMode);
      if (options.allowedTools.length > 0) args.push("--allowedTools", options.allowedTools.join(","));
      if (resumeId) args.push("--resume", resumeId);
      if (request.model) args.push("--model", request.model);
      const child: ChildProcessByStdio<Writable | null, Readable, Readable> = spawn(options.bin, args, {
        cwd: request.session.cwd,
        env: childEnv(),
        detached: true, // its own process group, so /stop ends every tool it started
        stdio: [images.length > 0 ? "pipe" : "ignore", "pipe", "pipe"],
      }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
      if (child.stdin) {
        child.stdin.on("error", () => {}); // a CLI that exits early closes its end; the result says why
        child.stdin.end(`${JSON.stringify(userMessage(request.prompt, images))}\n`);
      }
      let sessionId: string | undefined;
      let result: RunOutcome["result"];
      let usage: TokenUsage | undefined;
      let errors = "";
      let stderr = "";
      const onAbort = () => child.pid !== undefined && killTree(child.pid, options.stopGraceMs);
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener("abort", onAbort, { once: true });

      createInterface({ input: child.stdout }).on("line", (raw) => {
        const line = parseStreamLine(raw);
        if (!line) return;
        if ("session_id" in line && typeof line.session_id === "string") sessionId = line.session_id;
        for (const status of progressLines(line)) request.onProgress(status);
        if (request.onDetail) for (const { kind, text } of detailLines(line)) request.onDetail(kind, text);
        if (line.type === "result") {
          errors = (line.errors ?? []).map(String).join("\n");
          result = { text: line.result ?? errors, isError: line.is_error };
          usage = claudeResultUsage(line);
        }
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr = (stderr + chunk).slice(-8000);
      });
      child.once("error", (error) => {
        stderr += error.message;
      });
      child.once("close", (exitCode) => {
        request.signal.removeEventListener("abort", onAbort);
        resolve({ sessionId, result, errors, stderr, exitCode, aborted: request.signal.aborted, usage });
      });
    });

  return {
    name: "claude",
    async runTurn(request): Promise<TurnResult> {
      const previous = request.session.agent_session_id;
      let outcome = await run(request, previous);
      let notice: string | undefined;
      if (previous && !outcome.aborted && NO_CONVERSATION.test(`${outcome.errors}\n${outcome.stderr}`)) {
        options.logger.warn({ previous }, "Claude conversation not found; starting a fresh one");
        notice =
          "⚠️ The earlier Claude Code conversation was not found on this machine, so this is a fresh one.";
        outcome = await run(request, undefined);
      }
      const agentSessionId = outcome.sessionId ?? previous;
      const withUsage = outcome.usage ? { usage: outcome.usage } : {};
      if (outcome.aborted)
        return { ok: false, stopped: true, text: "⏹️ Stopped.", agentSessionId, ...withUsage };
      const withNotice = { ...(notice ? { notice } : {}), ...withUsage };
      if (outcome.result) {
        const { text, isError } = outcome.result;
        return { ok: !isError, stopped: false, text, agentSessionId, ...withNotice };
      }
      const reason = outcome.stderr.trim() || `claude exited with code ${outcome.exitCode} without a result`;
      options.logger.warn(
        { exitCode: outcome.exitCode, stderr: outcome.stderr.slice(-500) },
        "claude turn failed",
      );
      return { ok: false, stopped: false, text: reason.slice(-2000), agentSessionId, ...withNotice };
    },
    async close() {},
  };
}
