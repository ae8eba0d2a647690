import { createTestLogger, type FakeMcp, startFakeMcp } from "@phonework/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpConnection, type McpConnection } from "../src/web/mcp-client.ts";
import { createWebTool, WebArgs } from "../src/web/web-tool.ts";
import { toolContext } from "./support.ts";

let mcp: FakeMcp;
let connection: McpConnection;
afterEach(async () => {
  await connection?.close();
  await mcp?.close();
});

async function setup(apiKey = "mk-test") {
  mcp = await startFakeMcp({ apiKey: "mk-test" });
  connection = createMcpConnection({ url: mcp.url, apiKey, logger: createTestLogger().logger });
  const tool = createWebTool(connection);
  return (args: Record<string, unknown>) => tool.execute(WebArgs.parse(args), toolContext());
}

describe("web tool over MCP", () => {
  it("search: calls the server's search tool with its own parameter names from tools/list", async () => {
    const web = await setup();
    const out = await web({ action: "search", query: "LangChain changes", scope: "paper" });
    expect(out).toContain("Result for LangChain changes");
    expect(mcp.calls).toEqual([
      { name: "metaso_web_search", arguments: { q: "LangChain changes", scope: "paper" } },
    ]);
  });

  it("fetch: reads a page as markdown", async () => {
    const web = await setup();
    const out = await web({ action: "fetch", url: "https://example.com" });
    expect(out).toContain("# Example Domain");
    expect(mcp.calls).toEqual([
      { name: "metaso_web_reader", arguments: { url: "https://example.com", format: "markdown" } },
    ]);
  });

  it("ask: a researched answer", async () => {
    const web = await setup();
    expect(await web({ action: "ask", query: "Python 3.13 有哪些新特性?" })).toBe(
      "Answer about: Python 3.13 有哪些新特性?",
    );
  });

  it("names what is missing or invalid", async () => {
    const web = await setup();
    await expect(web({ action: "fetch" })).rejects.toThrow('web fetch needs "url"');
    await expect(web({ action: "fetch", url: "not a url" })).rejects.toThrow(/invalid fetch arguments: url/);
  });

  it("reports a wrong key as an unreachable server, clearly", async () => {
    const web = await setup("wrong-key");
    await expect(web({ action: "search", query: "x" })).rejects.toThrow(/web search server is unreachable/);
  });
});
