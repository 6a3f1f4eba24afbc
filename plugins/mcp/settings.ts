/**
 * [mcp]: the MCP servers the mcp plugin starts. A change restarts the plugin to reconnect (or
 * starts it when the first server is configured). Built-in only: before the plugin reads the
 * section the kernel resolves what config.toml only names — header_secrets from
 * DATA/secrets.json, env_passthrough from the daemon's environment — so the plugin never holds
 * the daemon's environment or the secrets file.
 */
import * as v from "valibot";
import { RiskClass } from "../../src/protocol/agent.ts";
import {
  configFileOnly,
  defineSettings,
  onSettingsPage,
  setting,
  tableList,
} from "../../src/protocol/plugin-settings.ts";

const EnvName = v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be environment variable names"));
const HeaderName = v.pipe(v.string(), v.regex(/^[A-Za-z0-9-]{1,64}$/, "must be HTTP header names"));
/** The name of an entry in DATA/secrets.json's "values". */
const SecretName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be secret names (letters, digits, _ . -)"),
);

/**
 * One server. The settings page edits the list item by item (onSettingsPage below), with a
 * control for each field but those kept to config.toml: headers and env by value may hold
 * credentials, and env_passthrough hands the daemon's own environment to a child.
 */
export const McpServer = v.pipe(
  v.strictObject({
    name: v.pipe(
      v.string(),
      v.regex(/^[a-zA-Z0-9-]{1,32}$/, "must be 1-32 letters, digits or dashes"),
      v.description("1-32 letters, digits or dashes; its tools are called <name>_<tool>."),
    ),
    command: setting(v.string(), "", "A stdio server: the command to start."),
    args: setting(v.array(v.string()), [], "The command's arguments, one per line."),
    url: setting(
      v.pipe(
        v.string(),
        v.check((s) => s === "" || /^https?:\/\/\S+$/.test(s), "must be an http(s) URL"),
      ),
      "",
      "A Streamable HTTP server (instead of a command): its endpoint.",
    ),
    header_secrets: setting(
      v.record(HeaderName, SecretName),
      {},
      `HTTP headers sent to a url server whose values are named entries of DATA/secrets.json's
"values" (Authorization = github), never the values themselves.`,
    ),
    headers: setting(
      configFileOnly(v.record(HeaderName, v.string())),
      {},
      "HTTP headers sent to a url server, by value.",
    ),
    env: setting(configFileOnly(v.record(EnvName, v.string())), {}, "Variables of a stdio server, by value."),
    env_passthrough: setting(
      configFileOnly(
        v.array(
          v.pipe(
            EnvName,
            v.check((n) => !n.startsWith("HOMED_"), "HOMED_* variables are the daemon's own and never reach a child"),
          ),
        ),
      ),
      [],
      "Variables passed through from the daemon's environment.",
    ),
    risk: setting(RiskClass, "exec", "The risk class its tools are asked about as."),
    read_only_hint: setting(
      v.boolean("must be true or false"),
      false,
      "Tools the server marks readOnlyHint run as read (trust the server's word only if you trust the server).",
    ),
  }),
  v.check(
    (s) => (s.command === "") !== (s.url === ""),
    "a server needs either command (stdio) or url (Streamable HTTP), not both",
  ),
);
export type McpServer = v.InferOutput<typeof McpServer>;

export const McpConfig = v.strictObject({
  servers: setting(
    tableList(onSettingsPage(v.array(McpServer), "mcp_servers", "MCP servers")),
    [],
    `[[mcp.servers]]
name = "everything"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
A server starts with a minimal environment (PATH, HOME, LANG, TZ, TMPDIR), never the
daemon's: add variables by value, or pass named ones through from the daemon's own
environment (HOMED_* never passes).
env = { API_BASE = "http://127.0.0.1:9000" }
env_passthrough = ["GITHUB_TOKEN"]
Risk class of its tools (read, write, exec, network, secret): asked about as "exec" unless
you say otherwise. read_only_hint = true lets tools the server marks readOnlyHint run as
"read" (trust the server's word only if you trust the server).
risk = "exec"
read_only_hint = false
A server over Streamable HTTP has a url instead of a command. Headers go by value, or by
the name of a secret in DATA/secrets.json ({"values": {"github": "Bearer ghp_..."}}, 0600)
so that config.toml holds no credentials:
[[mcp.servers]]
name = "github"
url = "https://api.githubcopilot.com/mcp/"
headers = { "X-Client" = "homed" }
header_secrets = { Authorization = "github" }`,
  ),
});
export type McpConfig = v.InferOutput<typeof McpConfig>;

export const SETTINGS = defineSettings({
  doc: "MCP servers whose tools the agent may use (started and supervised by the mcp plugin):",
  schema: McpConfig,
  reload: "plugin-restart",
  builtinOnly: true,
  resolve: (section, ctx) => {
    const secrets = section.servers.some((s) => Object.keys(s.header_secrets).length > 0) ? ctx.secrets() : {};
    const servers = section.servers.map(({ env_passthrough, header_secrets, ...s }) => {
      const headers = { ...s.headers };
      const missing: string[] = [];
      for (const [header, name] of Object.entries(header_secrets)) {
        const value = secrets[name];
        if (value === undefined) missing.push(name);
        else headers[header] = value;
      }
      return { ...s, headers, missing_secrets: missing, env: { ...ctx.passThrough(env_passthrough), ...s.env } };
    });
    return { servers };
  },
});
