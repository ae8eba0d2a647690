import { createTestLogger, type FakeOpenAI, startFakeOpenAI, waitFor } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type Tool, ToolError } from "../src/contracts/tool.ts";
import { runAgentLoop } from "../src/model/agent-loop.ts";
import { createOpenAIModelClient } from "../src/model/model-client.ts";
import { toolContext } from "./support.ts";

// The loop against the real OpenAI SDK and a fake OpenAI-compatible server.

let fake: FakeOpenAI;
afterEach(() => fake?.close());

const addTool: Tool = defineTool({
  name: "add",
  description: "add two numbers",
  schema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});
const failingTool: Tool = defineTool({
  name: "explode",
  description: "always fails",
  schema: z.object({}),
  execute: async () => {
    throw new ToolError("the fuse was lit");
  },
});

async function run(
  options: { input?: string; maxSteps?: number; signal?: AbortSignal; tools?: Tool[]; retries?: number } = {},
) {
  const model = createOpenAIModelClient({
    baseURL: fake.url,
    apiKey: "k",
    model: "fake-model",
    maxRetries: options.retries ?? 2,
  });
  return runAgentLoop({
    model,
    tools: options.tools ?? [addTool, failingTool],
    systemPrompt: "SYSTEM",
    history: [],
    input: options.input ?? "hi",
    maxSteps: options.maxSteps ?? 5,
    context: toolContext(options.signal ? { signal: options.signal } : {}),
    logger: createTestLogger().logger,
  });
}

describe("agent loop", () => {
  it("answers directly: one request, no tool call, the reply verbatim", async () => {
    fake = await startFakeOpenAI();
    fake.script({
      text: "A generator is a function that yields values lazily.\n```py\ndef g(): yield 1\n```",
    });
    const result = await run({ input: "what is a Python generator?" });
    expect(result).toMatchObject({ stopReason: "done", toolCalls: 0 });
    expect(result.reply).toBe(
      "A generator is a function that yields values lazily.\n```py\ndef g(): yield 1\n```",
    );
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.messages[0]).toEqual({ role: "system", content: "SYSTEM" });
    expect(fake.toolNames()).toEqual(["add", "explode"]);
  });

  it("shows the model each tool's JSON schema from its zod schema", async () => {
    fake = await startFakeOpenAI();
    fake.script({ text: "ok" });
    await run();
    expect(fake.requests[0]?.tools?.[0]?.function.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
  });

  it("runs a tool call and gives the model its result", async () => {
    fake = await startFakeOpenAI();
    fake.script({ toolCalls: [{ name: "add", arguments: { a: 2, b: 40 } }] }, (req) => ({
      text: `the sum is ${fake.toolResults(req)[0]}`,
    }));
    const result = await run();
    expect(result.reply).toBe("the sum is 42");
    expect(result.added.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("answers malformed, invalid, unknown and failing tool calls as errors the model sees", async () => {
    fake = await startFakeOpenAI();
    fake.script(
      {
        toolCalls: [
          { name: "add", arguments: "{not json" },
          { name: "add", arguments: { a: "two" } },
          { name: "teleport", arguments: {} },
          { name: "explode", arguments: {} },
        ],
      },
      { text: "done" },
    );
    const result = await run();
    expect(result.stopReason).toBe("done");
    const [bad, invalid, unknown, failed] = fake.toolResults(fake.requests[1]);
    expect(bad).toMatch(/^Error: the arguments for add are not valid JSON/);
    expect(invalid).toMatch(/^Error: invalid arguments for add: a: .*number/);
    expect(unknown).toBe('Error: there is no tool named "teleport"');
    expect(failed).toBe("Error: the fuse was lit");
  });

  it("stops after the step limit and says so", async () => {
    fake = await startFakeOpenAI();
    fake.fallback = () => ({ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] });
    const result = await run({ maxSteps: 3 });
    expect(result.stopReason).toBe("max_steps");
    expect(result.reply).toMatch(/^I stopped after 3 steps without finishing/);
    expect(fake.requests).toHaveLength(3);
  });

  it("retries 429 and 5xx with backoff, then succeeds", async () => {
    fake = await startFakeOpenAI();
    const fast = { "retry-after-ms": "10" };
    fake.script({ status: 429, headers: fast }, { status: 503, headers: fast }, { text: "finally" });
    const result = await run();
    expect(result.reply).toBe("finally");
    expect(fake.requests).toHaveLength(3);
  });

  it("ends the turn with a clear reply when the provider keeps failing, without throwing", async () => {
    fake = await startFakeOpenAI();
    fake.fallback = () => ({ status: 500, headers: { "retry-after-ms": "1" } });
    const result = await run({ retries: 1 });
    expect(result.stopReason).toBe("provider_error");
    expect(result.reply).toMatch(/^⚠️ The model provider failed \(HTTP 500/);
    expect(fake.requests).toHaveLength(2);
  });

  it("stops when aborted", async () => {
    fake = await startFakeOpenAI();
    const controller = new AbortController();
    fake.script({ delayMs: 2000, reply: { text: "too late" } });
    // Aborted while the model is working on it.
    void waitFor(() => fake.requests.length === 1, { message: "the model's request" }).then(() =>
      controller.abort(),
    );
    const result = await run({ signal: controller.signal });
    expect(result).toMatchObject({ stopReason: "aborted", reply: "⏹️ Stopped." });
  });
});
