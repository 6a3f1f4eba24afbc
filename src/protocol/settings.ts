/**
 * The settings the web UI edits besides the provider (which has llm/*): the system prompt, the
 * approval rules, memory's recall scope, the private hosts fetch_url and the browser may reach,
 * and every plugin's section a form can edit (from its settings declaration). They are kept in
 * DATA/settings.json, which wins over config.toml field by field (like llm.json for [llm]); a
 * save is applied at once, like a SIGHUP, and the answer says what was applied and what only a
 * restart applies.
 */
import * as v from "valibot";
import { SETTING_KINDS, SETTINGS_RELOAD, SectionPath } from "./plugin-settings.ts";

export const SettingsMethod = {
  Get: "settings/get",
  Set: "settings/set",
  /** Add one tool name to approval.allow (the "always allow" of an approval card). */
  AllowTool: "settings/allow-tool",
  /** Re-read config.toml, llm.json and settings.json and apply them, as SIGHUP does. */
  Reload: "settings/reload",
} as const;

/** A plugin setting's value as a form edits it (settingForm's kinds). */
const PluginValue = v.union(
  [
    v.boolean(),
    v.number(),
    v.pipe(v.string(), v.maxLength(10_000, "a value is at most 10000 characters")),
    v.pipe(
      v.array(v.pipe(v.string(), v.maxLength(10_000, "a value is at most 10000 characters"))),
      v.maxLength(1000, "a list is at most 1000 items"),
    ),
  ],
  "must be true or false, a number, a string or a list of strings",
);

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
  /**
   * Plugins' settings by section and field, e.g. {"tools.fetch": {"max_kb": 512}}: only the
   * fields the page lists (SettingsView.plugins). null gives a field back to config.toml (it is
   * removed from settings.json).
   */
  sections: v.optional(
    v.record(
      SectionPath,
      v.record(
        v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]{0,63}$/, "a setting's name is lower_snake_case")),
        v.nullable(PluginValue),
      ),
    ),
  ),
});
export type SettingsPatch = v.InferOutput<typeof SettingsPatch>;

export type SettingsField = keyof SettingsPatch;

const Source = v.picklist(["settings.json", "config.toml", "default"]);

/** One field of a plugin's section as the page shows it: the control (settingForm) and the values. */
export const PluginSettingView = v.object({
  key: v.string(),
  /** The field's doc (fieldDoc). */
  doc: v.string(),
  kind: v.picklist(SETTING_KINDS),
  integer: v.optional(v.boolean()),
  min: v.optional(v.number()),
  max: v.optional(v.number()),
  choices: v.optional(v.array(v.union([v.string(), v.number()]))),
  /** What config.toml and settings.json say now. */
  value: PluginValue,
  /** The value in force, when it is not `value` yet (the change waits for a restart). */
  running: v.optional(PluginValue),
  default: PluginValue,
  source: Source,
});
export type PluginSettingView = v.InferOutput<typeof PluginSettingView>;

/** A plugin's section of config.toml on the page, with the fields a form can edit. */
export const PluginSectionView = v.object({
  plugin: v.string(),
  /** Dotted, e.g. "tools.fetch". */
  section: v.string(),
  doc: v.string(),
  /** What a change needs (SETTINGS_RELOAD). */
  reload: v.picklist(SETTINGS_RELOAD),
  builtin: v.boolean(),
  fields: v.array(PluginSettingView),
});
export type PluginSectionView = v.InferOutput<typeof PluginSectionView>;

export const SettingsView = v.object({
  system_prompt: v.string(),
  approval_default: v.picklist(["allow", "ask", "deny"]),
  approval_allow: v.array(v.string()),
  approval_ask: v.array(v.string()),
  approval_deny: v.array(v.string()),
  recall_untrusted: v.boolean(),
  allow_hosts: v.array(v.string()),
  /** Where each value came from: settings.json, config.toml (or its environment/flag) or default. */
  sources: v.record(v.string(), Source),
  /** The labels of the plugins' fields on the page, from their settings (by field). */
  labels: v.optional(v.record(v.string(), v.string()), {}),
  /** The MCP servers of config.toml, read-only here. */
  mcp_servers: v.array(v.object({ name: v.string(), transport: v.picklist(["stdio", "http"]), target: v.string() })),
  /** Every plugin's section a form can edit, built-in and external (none of those carrying secrets). */
  plugins: v.optional(v.array(PluginSectionView), []),
  /**
   * Plugin fields settings.json holds that no section on the page lists (a plugin removed since),
   * as dotted paths: they are ignored, and a Save sending null for one removes it.
   */
  unused: v.optional(v.array(v.string()), []),
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
