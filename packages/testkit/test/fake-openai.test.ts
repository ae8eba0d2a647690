import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../src/index.ts";

// The fake must be a faithful OpenAI-compatible server: the real SDK reads it, streamed or not.

let fake: FakeOpenAI;
afterEach(() => fake?.close());

describe("fake OpenAI-compatible server", () => {
  it("streams text and tool calls that the SDK reassembles", async () => {
    fake = await startFakeOpenAI();
    fake.script({
      text: "Hello streaming world",
      toolCalls: [{ name: "run_shell", arguments: { command: "ls" } }],
    });
    const client = new OpenAI({ baseURL: fake.url, apiKey: "k" });
    const stream = await client.chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    let args = "";
    let name = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      text += choice?.delta.content ?? "";
      name += choice?.delta.tool_calls?.[0]?.function?.name ?? "";
      args += choice?.delta.tool_calls?.[0]?.function?.arguments ?? "";
      finish = choice?.finish_reason ?? finish;
    }
    expect(text).toBe("Hello streaming world");
    expect(name).toBe("run_shell");
    expect(JSON.parse(args)).toEqual({ command: "ls" });
    expect(finish).toBe("tool_calls");
    expect(fake.requests[0]?.stream).toBe(true);
  });

  it("answers non-streaming requests, records them, and refuses a wrong key", async () => {
    fake = await startFakeOpenAI({ apiKey: "right" });
    const client = new OpenAI({ baseURL: fake.url, apiKey: "right" });
    const reply = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "ping" }],
    });
    expect(reply.choices[0]?.message.content).toBe("fake-model: ping");
    expect(fake.lastUserText()).toBe("ping");
    const wrong = new OpenAI({ baseURL: fake.url, apiKey: "wrong", maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: "m", messages: [] })).rejects.toMatchObject({
      status: 401,
    });
  });
});
