/**
 * The settings the web UI edits besides the provider (which has llm/*): the system prompt, the
 * approval rules, memory's recall scope and the private hosts fetch_url and the browser may reach. They are kept in DATA/settings.json, which wins
 * over config.toml field by field (like llm.json for [llm]); a save is applied at once, like a
 * SIGHUP, and the answer says what was applied and what only a restart applies.
 */
import * as v from "valibot";

export const SettingsMethod = {
  Get: "settings/get",
  Set: "settings/set",
  /** Add one tool name to approval.allow (the "always allow" of an approval card). */
  AllowTool: "settings/allow-tool",
  /** Re-read config.toml, llm.json and settings.json and apply them, as SIGHUP does. */
  Reload: "settings/reload",
} as const;

const Patterns = v.pipe(v.array(v.pipe(v.string(), v.maxLength(200))), v.maxLength(500));

/** What the UI may change; a field left out keeps its value. Checked again as config by the kernel. */
export const SettingsPatch = v.strictObject({
  system_prompt: v.optional(v.pipe(v.string(), v.maxLength(100_000, "the system prompt is too long"))),
  approval_default: v.optional(v.picklist(["allow", "ask", "deny"], "approval default must be allow, ask or deny")),
  approval_allow: v.optional(Patterns),
  approval_ask: v.optional(Patterns),
  approval_deny: v.optional(Patterns),
  recall_untrusted: v.optional(v.boolean("recall_untrusted must be true or false")),
  /**
   * Private hosts (names, "*.lan", addresses, CIDR ranges) fetch_url and the browser may reach:
   * [tools.fetch] and [tools.browser] allow_hosts, both.
   */
  allow_hosts: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(253))), v.maxLength(200))),
  /** The whole [[mcp.servers]] list, replacing config.toml's (written by the kernel from mcp_add / mcp_remove). */
  mcp_servers: v.optional(v.pipe(v.array(v.record(v.string(), v.unknown())), v.maxLength(100))),
  /** Add one MCP server (stdio: command and args; Streamable HTTP: url and header_secrets). */
  mcp_add: v.optional(
    v.strictObject({
      name: v.string(),
      command: v.optional(v.string()),
      args: v.optional(v.array(v.string())),
      url: v.optional(v.string()),
      header_secrets: v.optional(v.record(v.string(), v.string())),
    }),
  ),
  /** Remove the MCP server of this name. */
  mcp_remove: v.optional(v.string()),
});
export type SettingsPatch = v.InferOutput<typeof SettingsPatch>;

export type SettingsField = keyof SettingsPatch;

export const SettingsView = v.object({
  system_prompt: v.string(),
  approval_default: v.picklist(["allow", "ask", "deny"]),
  approval_allow: v.array(v.string()),
  approval_ask: v.array(v.string()),
  approval_deny: v.array(v.string()),
  recall_untrusted: v.boolean(),
  allow_hosts: v.array(v.string()),
  /** Where each value came from: settings.json, config.toml (or its environment/flag) or default. */
  sources: v.record(v.string(), v.picklist(["settings.json", "config.toml", "default"])),
  /** The labels of the plugins' fields on the page, from their settings (by field). */
  labels: v.optional(v.record(v.string(), v.string()), {}),
  /** The MCP servers of config.toml, read-only here. */
  mcp_servers: v.array(v.object({ name: v.string(), transport: v.picklist(["stdio", "http"]), target: v.string() })),
});
export type SettingsView = v.InferOutput<typeof SettingsView>;

/** What a reload (SIGHUP, a Save) did: dotted config paths applied now, and those that need a restart. */
export const ReloadResult = v.object({
  applied: v.array(v.string()),
  restartNeeded: v.array(v.string()),
  /** Set when the new configuration was refused (nothing changed): the reason. */
  error: v.optional(v.string()),
});
export type ReloadResult = v.InferOutput<typeof ReloadResult>;

export const SettingsSaveResult = v.object({ settings: SettingsView, reload: ReloadResult });
export type SettingsSaveResult = v.InferOutput<typeof SettingsSaveResult>;

export const AllowToolParams = v.strictObject({
  tool: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "a tool name is 1-64 letters, digits, _ or -")),
});
