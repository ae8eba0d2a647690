import { createTestLogger } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { detailLines, parseStreamLine } from "../src/coding/claude-stream-json.ts";
import { TurnWatcher } from "../src/coding/codex-turn-watcher.ts";
import { defineTool } from "../src/contracts/tool.ts";
import { toolCallDetail, usageDetail } from "../src/contracts/turn-detail.ts";
import { runAgentLoop } from "../src/model/agent-loop.ts";
import type { ModelClient, ModelReply } from "../src/model/model-client.ts";
import { toolContext } from "./support.ts";

// A turn's details (tool calls, clipped results, usage) as the tool loop and the coding agents
// report them: only where a sink is given, bounded, secrets masked.

const shell = defineTool({
  name: "shell",
  description: "run a command",
  schema: z.object({ command: z.string(), api_key: z.string().optional() }),
  execute: async ({ command }) => (command === "big" ? "x".repeat(5000) : `ran ${command}`),
  describe: ({ command }) => `running: ${command}`,
});

/** A model that answers from a list, as the loop's injected model call. */
const scripted = (...replies: ModelReply[]): ModelClient => ({
  complete: async () => replies.shift() ?? { content: "done", toolCalls: [] },
});
const call = (id: string, args: Record<string, unknown>) => ({
  id,
  type: "function" as const,
  function: { name: "shell", arguments: JSON.stringify(args) },
});

async function turn(model: ModelClient, withDetails = true) {
  const details: Array<[string, string]> = [];
  const context = toolContext(withDetails ? { detail: (kind, text) => details.push([kind, text]) } : {});
  const result = await runAgentLoop({
    model,
    tools: [shell],
    systemPrompt: "S",
    history: [],
    input: "go",
    maxSteps: 5,
    context,
    logger: createTestLogger().logger,
  });
  return { result, details, lines: context.lines };
}

describe("the tool loop's details", () => {
  it("each call and its clipped result, then the turn's usage summed over its model calls, last", async () => {
    const { result, details, lines } = await turn(
      scripted(
        {
          content: null,
          toolCalls: [call("a", { command: "ls", api_key: "sk-live-123" }), call("b", { command: "big" })],
          usage: { input: 1000, output: 40 },
        },
        { content: "all done", toolCalls: [], usage: { input: 1234, output: 300 } },
      ),
    );
    expect(result.reply).toBe("all done");
    expect(lines).toEqual(["running: ls", "running: big"]); // the status lines stay as they were
    expect(details.map(([kind]) => kind)).toEqual(["tool", "result", "tool", "result", "usage"]);
    expect(details[0]?.[1]).toBe("shell: command=ls api_key=***");
    expect(details.join()).not.toContain("sk-live-123");
    expect(details[1]?.[1]).toBe("ran ls");
    expect(details[3]?.[1]).toHaveLength(1500);
    expect(details[3]?.[1].endsWith("…")).toBe(true);
    expect(details[4]?.[1]).toBe("2.2k in · 340 out");
  });

  it("without a sink (the chat shows no details) nothing else is sent; no usage line when the API gave none", async () => {
    const none = await turn(scripted({ content: null, toolCalls: [call("a", { command: "ls" })] }), false);
    expect(none.lines).toEqual(["running: ls"]);
    const noUsage = await turn(scripted({ content: null, toolCalls: [call("a", { command: "ls" })] }));
    expect(noUsage.details.map(([kind]) => kind)).toEqual(["tool", "result"]);
  });

  it("formats: usage in k and M, a tool call on one short line", () => {
    expect(usageDetail({ input: 999, output: 1000 })).toBe("999 in · 1k out");
    expect(usageDetail({ input: 2_500_000, output: 12_345 })).toBe("2.5M in · 12.3k out");
    const long = toolCallDetail("write", { path: "a.txt", content: "line\n".repeat(500) });
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long).not.toContain("\n");
  });
});

describe("the coding agents' details", () => {
  it("Claude Code: tool_use is a tool detail, tool_result a clipped result", () => {
    const use = parseStreamLine(
      JSON.stringify({
        type: "assistant",
        message: { content: [{ type: "tool_use", name: "Bash", input: { command: "npm test" } }] },
      }),
    );
    const result = parseStreamLine(
      JSON.stringify({
        type: "user",
        message: { content: [{ type: "tool_result", content: [{ type: "text", text: "y".repeat(3000) }] }] },
      }),
    );
    expect(use && detailLines(use)).toEqual([{ kind: "tool", text: "Bash: npm test" }]);
    const [shown] = result ? detailLines(result) : [];
    expect(shown?.kind).toBe("result");
    expect(shown?.text.length).toBe(1500);
    // A plain user line, or one with string content, has no details.
    expect(
      detailLines(parseStreamLine('{"type":"user","message":{"content":"hi"}}') ?? { type: "user" }),
    ).toEqual([]);
  });

  it("Codex: a command's start is a tool detail, its completion the output with the exit code", () => {
    const details: Array<[string, string]> = [];
    const watcher = new TurnWatcher(
      { userId: "u", chatId: "c", platform: "p", project: "demo" },
      new AbortController().signal,
      () => {},
      () => {},
      (kind, text) => details.push([kind, text]),
    );
    watcher.onNotification("item/started", { item: { type: "commandExecution", command: "echo one" } });
    watcher.onNotification("item/completed", {
      item: { type: "commandExecution", command: "echo one", exitCode: 0, aggregatedOutput: "one\n" },
    });
    watcher.onNotification("item/completed", { item: { type: "agentMessage", text: "done" } });
    expect(details).toEqual([
      ["tool", "shell: echo one"],
      ["result", "exit code 0\none"],
    ]);
  });
});
