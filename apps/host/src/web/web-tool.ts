import { capText } from "@phonework/runtime";
import { z } from "zod";
import { defineTool, describeZodError, type Tool, ToolError } from "../contracts/tool.ts";
import type { McpConnection, McpToolInfo } from "./mcp-client.ts";

// web: search, fetch and ask through an MCP server (Metaso by default). The server's
// own tool list decides which tool serves each action and what its parameters are called.

export const WebArgs = z.object({
  action: z.enum(["search", "fetch", "ask"]),
  query: z.string().optional().describe("search: the query; ask: the question"),
  url: z.string().optional().describe("fetch: the page to read"),
  scope: z.string().optional().describe("search: webpage (default), paper, document, video or podcast"),
  max_chars: z.number().int().positive().max(50_000).default(6000),
});
type WebArgs = z.output<typeof WebArgs>;

const ACTION_TOOL: Record<WebArgs["action"], RegExp> = {
  search: /search/i,
  fetch: /read|fetch|crawl|scrape/i,
  ask: /chat|ask|qa|answer/i,
};
const QUERY_NAMES = new Set(["q", "query", "question", "message", "keyword", "keywords", "text", "prompt"]);
const URL_NAMES = new Set(["url", "link", "uri"]);

export function pickTool(tools: McpToolInfo[], action: WebArgs["action"]): McpToolInfo {
  const tool = tools.find((t) => ACTION_TOOL[action].test(t.name));
  if (!tool) {
    throw new ToolError(
      `the web server has no tool for "${action}" (it offers: ${tools.map((t) => t.name).join(", ")})`,
    );
  }
  return tool;
}

/** Fills the server tool's own parameters from ours, by what each parameter means. */
export function buildArguments(tool: McpToolInfo, args: WebArgs): Record<string, unknown> {
  const properties = tool.inputSchema.properties ?? {};
  const built: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (QUERY_NAMES.has(name) && args.query) built[name] = args.query;
    else if (URL_NAMES.has(name) && args.url) built[name] = args.url;
    else if (name === "scope" && args.scope) built[name] = args.scope;
    else if (name === "format" && Array.isArray(schema.enum) && schema.enum.includes("markdown"))
      built[name] = "markdown";
  }
  for (const name of tool.inputSchema.required ?? []) {
    if (!(name in built)) {
      const hint = URL_NAMES.has(name) ? "url" : QUERY_NAMES.has(name) ? "query" : name;
      throw new ToolError(`web ${args.action} needs "${hint}"`);
    }
  }
  const check = z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(built);
  if (!check.success)
    throw new ToolError(`invalid ${args.action} arguments: ${describeZodError(check.error)}`);
  return built;
}

export function createWebTool(connection: McpConnection): Tool {
  return defineTool({
    name: "web",
    description:
      "The web, through Metaso AI search. action=search: top results (title, snippet, URL) for query; " +
      "fetch: a page's content as markdown (url); ask: a researched answer to a factual question (query).",
    schema: WebArgs,
    describe: (args) => `web ${args.action}: ${args.query ?? args.url ?? ""}`.slice(0, 90),
    async execute(args, ctx) {
      let tools: McpToolInfo[];
      try {
        tools = await connection.listTools();
      } catch (error) {
        throw new ToolError(`the web search server is unreachable: ${(error as Error).message}`);
      }
      const tool = pickTool(tools, args.action);
      const text = await connection.callTool(tool.name, buildArguments(tool, args), ctx.signal);
      return capText(text, args.max_chars);
    },
  });
}
