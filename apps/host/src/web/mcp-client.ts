import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Logger } from "@phonework/runtime";

// A lazily connected MCP client over Streamable HTTP with a Bearer token. The tool list is
// read from the server (tools/list) and cached; a failed connection is retried on next use.
// The MCP SDK itself is loaded at the first connection: a host that never searches the web
// does not pay its memory or start-up time.

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, Record<string, unknown>>; required?: string[] };
}

export interface McpConnection {
  listTools(): Promise<McpToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

export function createMcpConnection(options: { url: string; apiKey: string; logger: Logger }): McpConnection {
  let client: Promise<Client> | undefined;
  let tools: McpToolInfo[] | undefined;

  const connect = () => {
    client ??= (async () => {
      const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
        import("@modelcontextprotocol/sdk/client/index.js"),
        import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      ]);
      const created = new Client({ name: "phonework-host", version: "0.1.0" });
      const transport = new StreamableHTTPClientTransport(new URL(options.url), {
        requestInit: { headers: { Authorization: `Bearer ${options.apiKey}` } },
      });
      await created.connect(transport);
      return created;
    })().catch((error: unknown) => {
      client = undefined;
      options.logger.warn({ err: (error as Error).message, url: options.url }, "MCP connection failed");
      throw error;
    });
    return client;
  };

  return {
    async listTools() {
      if (tools) return tools;
      const listed = await (await connect()).listTools();
      tools = listed.tools as McpToolInfo[];
      return tools;
    },
    async callTool(name, args, signal) {
      const result = await (await connect()).callTool({ name, arguments: args }, undefined, { signal });
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      const text = content
        .filter((part) => part.type === "text")
        .map((part) => part.text ?? "")
        .join("\n");
      if (result.isError) throw new Error(text || `${name} failed`);
      return text;
    },
    async close() {
      const current = await client?.catch(() => undefined);
      await current?.close();
    },
  };
}
