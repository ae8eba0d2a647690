import { join } from "node:path";
import { type FakeOpenAI, startFakeMcp, startFakeOpenAI } from "@phonework/testkit";
import { describe, expect, it } from "vitest";
import { phonework, scope } from "./support.ts";

// The assistant's SDKs as the package ships them: the OpenAI client and the MCP client are bundled
// into chunks that their first use loads (a missing chunk or package would only show here). A piped
// standalone asks the fake model, which calls the `web` tool; the tool asks the fake MCP server.

describe("the assistant, installed", () => {
  it("a question answered with the web tool: the model by the OpenAI SDK, the search by the MCP client", async () => {
    const model = await startFakeOpenAI({ apiKey: "sk-installed" });
    scope.add(() => model.close());
    const mcp = await startFakeMcp({ apiKey: "mk-installed" });
    scope.add(() => mcp.close());
    model.script(
      { toolCalls: [{ name: "web", arguments: { action: "search", query: "bundled sdk" } }] },
      (request: Parameters<FakeOpenAI["toolResults"]>[0]) => ({
        text: `found:\n${model.toolResults(request).at(-1)}`,
      }),
    );
    const dir = scope.tempDir();
    const standalone = phonework(["standalone", "--data-dir", join(dir, "data"), "--working-dir", dir], {
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: "sk-installed",
      METASO_API_KEY: "mk-installed",
      METASO_MCP_URL: mcp.url,
    });
    standalone.writeLine("search the web for bundled sdk");
    standalone.endInput();
    expect(await standalone.exited, standalone.stderr()).toEqual({ code: 0, signal: null });
    expect(standalone.stdout()).toContain("found:\n1. Result for bundled sdk");
    expect(mcp.calls).toEqual([
      { name: "metaso_web_search", arguments: expect.objectContaining({ q: "bundled sdk" }) },
    ]);
    expect(model.requests).toHaveLength(2);
  });
});
