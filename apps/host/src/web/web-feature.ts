import type { Logger } from "@phonework/runtime";
import type { HostConfig } from "../config/host-config.ts";
import type { HostFeature } from "../contracts/host-feature.ts";
import { createMcpConnection } from "./mcp-client.ts";
import { createWebTool } from "./web-tool.ts";

// Web search and reading through Metaso's MCP server, when METASO_API_KEY is set. Without it the
// assistant is told, once asked, how to turn it on.

export interface WebFeature extends HostFeature {
  /** Why the web tool is missing, for the assistant to say when a user asks for it. */
  readonly unavailable: Record<string, string>;
}

export function createWebFeature(deps: {
  config: Pick<HostConfig, "METASO_API_KEY" | "METASO_MCP_URL">;
  logger: Logger;
}): WebFeature {
  const { config, logger } = deps;
  if (!config.METASO_API_KEY)
    return {
      name: "web",
      unavailable: { web: "web search is not configured on this node (set METASO_API_KEY on the host)" },
    };
  const web = createMcpConnection({ url: config.METASO_MCP_URL, apiKey: config.METASO_API_KEY, logger });
  return {
    name: "web",
    unavailable: {},
    tools: [createWebTool(web)],
    capabilities: () => ["web"],
    stop: () => web.close(),
  };
}
