/**
 * One MCP server over stdio or Streamable HTTP, kept connected: its tools are registered with the kernel as
 * `<server>_<tool>` while it is up and withdrawn when it goes down; a crash restarts it with the
 * plugin supervisor's policy (1 s, 2 s, 3 s; the 4th crash in 5 minutes stops).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterCrash } from "../../src/shared/restart-policy.ts";
import type { JsonSchemaTool, Plugin } from "../sdk/index.ts";
import type { RiskClass } from "../../src/protocol/agent.ts";
import { childEnvironment } from "../../src/shared/child-env.ts";

export interface McpServerConfig {
  name: string;
  /** A stdio server's command; "" for a url server. */
  command: string;
  /** A Streamable HTTP server's endpoint; "" for a stdio server. */
  url: string;
  /** Headers of every HTTP request to a url server (secrets already resolved). */
  headers: Record<string, string>;
  /** Secrets header_secrets names that DATA/secrets.json lacks: the server is not contacted. */
  missing_secrets: string[];
  args: string[];
  env: Record<string, string>;
  /** The class of every tool of this server ("exec" unless the owner says otherwise). */
  risk: RiskClass;
  /** The owner trusts the server's readOnlyHint: such tools are "read". */
  read_only_hint: boolean;
}

export type McpServerState = "starting" | "running" | "restarting" | "stopped";

/** A tool name every provider accepts, from the server's and the tool's names. */
export function toolName(server: string, tool: string): string {
  return `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

type ContentItem = { type: string; text?: string; mimeType?: string; resource?: { uri?: string; text?: string } };

/** MCP tool output as the text the model reads. */
export function contentToText(content: readonly ContentItem[]): string {
  return content
    .map((c) => {
      if (c.type === "text") return c.text ?? "";
      if (c.type === "resource") return c.resource?.text ?? `[resource ${c.resource?.uri ?? ""}]`;
      return `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ""}]`;
    })
    .join("\n");
}

export class McpServer {
  state: McpServerState = "starting";
  private client: Client | null = null;
  private crashes: number[] = [];
  private registered: string[] = [];
  private stopping = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly cfg: McpServerConfig,
    private readonly plugin: Plugin,
  ) {}

  private transport(): Transport {
    if (this.cfg.url)
      return new StreamableHTTPClientTransport(new URL(this.cfg.url), { requestInit: { headers: this.cfg.headers } });
    const transport = new StdioClientTransport({
      command: this.cfg.command,
      args: this.cfg.args,
      // The plugin's own minimal environment and what the owner configured; nothing of the daemon's.
      env: childEnvironment(process.env, this.cfg.env),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n"))
        if (line.trim()) this.plugin.log.info("mcp server stderr", { server: this.cfg.name, line: line.slice(0, 500) });
    });
    return transport;
  }

  async start(): Promise<void> {
    if (this.cfg.missing_secrets.length > 0) {
      // Sending the request without its credentials would only fail at the server; say why here.
      this.state = "stopped";
      this.plugin.log.error("mcp server not contacted: secrets missing from secrets.json", {
        server: this.cfg.name,
        secrets: this.cfg.missing_secrets.join(","),
      });
      return;
    }
    this.state = "starting";
    const transport = this.transport();
    const client = new Client({ name: "homed", version: this.plugin.hello.kernelVersion });
    let closed = false;
    client.onclose = () => {
      if (closed) return;
      closed = true;
      void this.down("the server exited");
    };
    try {
      await client.connect(transport);
      this.client = client;
      const { tools } = await client.listTools();
      const defs: JsonSchemaTool[] = tools.map((t) => {
        const name = toolName(this.cfg.name, t.name);
        return {
          name,
          description: `[MCP ${this.cfg.name}] ${t.description ?? t.name}`.slice(0, 4000),
          parameters: t.inputSchema as Record<string, unknown>,
          risk: this.cfg.read_only_hint && t.annotations?.readOnlyHint === true ? "read" : this.cfg.risk,
          // What a server returns is its own text, not the person's: marked, whatever it claims.
          untrustedOutput: true,
          run: async (args, ctx) => {
            if (!this.client) return { content: `error: MCP server ${this.cfg.name} is not running`, isError: true };
            // The SDK sends the server notifications/cancelled when the signal fires.
            const r = await this.client.callTool(
              { name: t.name, arguments: (args ?? {}) as Record<string, unknown> },
              undefined,
              { signal: ctx.signal },
            );
            const content = Array.isArray(r.content)
              ? contentToText(r.content as ContentItem[])
              : JSON.stringify(r.structuredContent ?? r);
            return { content, isError: r.isError === true };
          },
        };
      });
      await this.plugin.jsonSchemaTools(defs);
      this.registered = defs.map((d) => d.name);
      this.state = "running";
      this.plugin.log.info("mcp server running", { server: this.cfg.name, tools: this.registered.length });
    } catch (err) {
      closed = true;
      await client.close().catch(() => {});
      await this.down(`could not start: ${(err as Error).message}`);
    }
  }

  private async down(why: string): Promise<void> {
    this.client = null;
    if (this.registered.length) {
      const names = this.registered;
      this.registered = [];
      await this.plugin.unregisterTools(names).catch(() => {});
    }
    if (this.stopping) return;
    const next = afterCrash(this.crashes, Date.now());
    this.crashes = next.crashes;
    if (next.delayMs === null) {
      this.state = "stopped";
      this.plugin.log.error("mcp server keeps crashing; not restarting it", {
        server: this.cfg.name,
        why,
        crashes: this.crashes.length,
      });
      return;
    }
    this.state = "restarting";
    this.plugin.log.warn("mcp server down; restarting", { server: this.cfg.name, why, in_ms: next.delayMs });
    this.timer = setTimeout(() => void this.start(), next.delayMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.client?.close().catch(() => {});
  }
}
