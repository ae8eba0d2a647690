import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { listenOnLoopback, sendJson } from "./shared/http-server.ts";

// A Metaso-like MCP server over Streamable HTTP, built with the SDK's own server class.
// Its tool names and parameter names follow Metaso's (`q`, `url`, `scope`, `format`), so a
// client that reads schemas from tools/list works and one that hard-codes guesses does not.

export interface McpCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface FakeMcp {
  url: string;
  calls: McpCall[];
  close(): Promise<void>;
}

function buildServer(calls: McpCall[]): McpServer {
  const server = new McpServer({ name: "fake-metaso", version: "1.0.0" });
  const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
  server.registerTool(
    "metaso_web_search",
    {
      description: "Search the web",
      inputSchema: {
        q: z.string().describe("search query"),
        scope: z.enum(["webpage", "paper", "document", "video", "podcast"]).optional(),
        size: z.number().int().optional(),
      },
    },
    async (args) => {
      calls.push({ name: "metaso_web_search", arguments: args });
      return text(`1. Result for ${args.q} — https://example.com/a\n2. Another — https://example.com/b`);
    },
  );
  server.registerTool(
    "metaso_web_reader",
    {
      description: "Read a web page",
      inputSchema: { url: z.string().url(), format: z.enum(["markdown", "json"]).optional() },
    },
    async (args) => {
      calls.push({ name: "metaso_web_reader", arguments: args });
      return text(`# Example Domain\n\nPage at ${args.url} as ${args.format ?? "markdown"}.`);
    },
  );
  server.registerTool(
    "metaso_chat",
    { description: "Answer a question with search", inputSchema: { message: z.string() } },
    async (args) => {
      calls.push({ name: "metaso_chat", arguments: args });
      return text(`Answer about: ${args.message}`);
    },
  );
  return server;
}

export async function startFakeMcp(options: { apiKey: string }): Promise<FakeMcp> {
  const calls: McpCall[] = [];
  const http = await listenOnLoopback(async (req, res, body) => {
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendJson(res, 401, { error: "unauthorized" });
      return;
    }
    // Stateless: a fresh server and transport per request, as the SDK recommends for simple servers.
    const server = buildServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
  });
  return { url: `${http.baseUrl}/mcp`, calls, close: http.close };
}
