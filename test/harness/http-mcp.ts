/**
 * A real Streamable HTTP MCP server for tests: the official SDK's server transport, served by
 * Bun on a free port, stateless, with one tool (`whoami`) and a required Authorization header.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The Authorization header the fixture wants. */
export const MCP_TOKEN = "Bearer mcp-secret-0123456789";

/** A stateless Streamable HTTP MCP server with one tool, `whoami`, that needs TOKEN. */
export function startHttpMcp() {
  const seen: { authorization: string | null; client: string | null }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      seen.push({ authorization: req.headers.get("authorization"), client: req.headers.get("x-client") });
      if (req.headers.get("authorization") !== MCP_TOKEN) return new Response("unauthorized", { status: 401 });
      const mcp = new Server({ name: "http-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          {
            name: "whoami",
            description: "Says which client called",
            inputSchema: { type: "object", properties: { note: { type: "string" } } },
          },
        ],
      }));
      mcp.setRequestHandler(CallToolRequestSchema, async (r) => ({
        content: [
          { type: "text", text: `client=${req.headers.get("x-client")} note=${String(r.params.arguments?.note)}` },
        ],
      }));
      // Stateless: one transport per request, JSON responses.
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await mcp.connect(transport);
      return await transport.handleRequest(req);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    seen,
    [Symbol.dispose]() {
      server.stop(true);
    },
  };
}
