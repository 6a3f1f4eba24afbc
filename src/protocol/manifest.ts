/**
 * plugin.json: what a plugin is and needs. Built-in plugins keep theirs in plugins/<name>/,
 * external ones in DATA/plugins/<name>/ next to their executable.
 */
import * as v from "valibot";
import { ToolDefinition } from "./agent.ts";
import { ManifestSettings } from "./plugin-settings.ts";

/** The words after `homed plugin` that are commands, so never a plugin's name. */
export const PLUGIN_COMMANDS: readonly string[] = ["new", "add", "remove"];

const Name = v.pipe(
  v.string(),
  v.regex(/^[a-z][a-z0-9-]{0,62}$/, "must be lower-case letters, digits and dashes, starting with a letter"),
  // `homed plugin new|add|remove …` are commands and `homed plugin NAME` runs a built-in one.
  v.check(
    (name) => !PLUGIN_COMMANDS.includes(name),
    (i) => `"${i.input}" is reserved (homed plugin ${i.input})`,
  ),
);
const Facility = v.pipe(
  v.string(),
  v.regex(/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/, "must look like area.name (e.g. channel.web)"),
);

export const PluginManifest = v.strictObject({
  name: Name,
  description: v.optional(v.pipe(v.string(), v.maxLength(300)), ""),
  /** `shm`: JSON-RPC + shared segment (fd 3) + doorbell (fd 4); `stdio`: JSON-RPC only. */
  transport: v.optional(v.picklist(["shm", "stdio"]), "shm"),
  provides: v.optional(v.array(Facility), []),
  requires: v.optional(v.array(Facility), []),
  /** While a critical plugin is down, the kernel fails closed on what it guards. */
  critical: v.optional(v.boolean(), false),
  /** Start on first use instead of at boot; stopped again when idle. */
  lazy: v.optional(v.boolean(), false),
  /**
   * Tools offered to the model before the plugin runs (each with its risk class), so a lazy
   * plugin's tools are there from boot; calling one starts it. What the plugin registers once
   * running replaces these.
   */
  tools: v.optional(v.pipe(v.array(ToolDefinition), v.maxLength(500)), []),
  /**
   * Built-in plugins that only matter when something is configured: the dotted config path
   * (e.g. "mcp.servers") that must be non-empty for the plugin to start at all.
   */
  enabled_by: v.optional(v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/))),
  /** External plugins: the executable, relative to the plugin's folder (or absolute), and its arguments. */
  exec: v.optional(v.pipe(v.string(), v.minLength(1))),
  /**
   * External plugins in TypeScript or JavaScript, instead of `exec`: the entry file, inside the
   * plugin's folder, run by the Bun runtime inside homed itself (`BUN_BE_BUN=1`), so neither
   * Bun nor a rebuild of the daemon is needed. Packages resolve from the folder's node_modules
   * and are never installed on the fly.
   */
  main: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^(?!\/)(?!.*(^|\/)\.\.(\/|$))[^\0]+\.(ts|tsx|js|mjs)$/,
        "must be a .ts, .tsx, .js or .mjs file inside the plugin's folder (a relative path without ..)",
      ),
    ),
  ),
  /**
   * The section of config.toml the plugin owns (src/protocol/plugin-settings.ts). A built-in
   * plugin names its section and the module in its folder that exports SETTINGS (valibot, with
   * defaults and docs); an external one gives a JSON Schema (each property with a default and a
   * description), its section [plugins.<name>] unless it names another.
   */
  settings: v.optional(ManifestSettings),
  /**
   * External plugins: the plugin needs the network. Its sandbox has none unless this is true
   * and the owner allowed it when adding the plugin (`homed plugin add DIR`). Built-in plugins
   * are not sandboxed and ignore it.
   */
  network: v.optional(v.boolean(), false),
  /**
   * A channel plugin whose messages name pictures it stored itself (blocks/put) as `[image block
   * …]` tags, defusing tags a sender typed: memory believes those tags in the messages of its
   * channels (the `channel.<name>` it provides) and records the pictures. Built-in plugins only.
   */
  image_tags: v.optional(v.boolean(), false),
  /**
   * Files or folders of the data folder where the plugin keeps secrets (a browser profile with its
   * cookies, a session): `homed backup` leaves them out unless asked (`-secrets`). Built-in
   * plugins only.
   */
  secret_data: v.optional(
    v.array(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]*$/, "must be one name at the top of the data folder"))),
    [],
  ),
  /** Arguments after the executable (`exec`) or the entry file (`main`). */
  args: v.optional(v.array(v.string()), []),
});

export type PluginManifest = v.InferOutput<typeof PluginManifest>;
