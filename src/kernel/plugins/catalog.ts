/**
 * Which plugins exist: the built-in ones compiled into this binary (from the generated list)
 * and external ones installed as DATA/plugins/<name>/plugin.json next to their executable.
 * An external plugin with a broken manifest is still listed — blocked, with the reason — so
 * the person who installed it sees why it does not run.
 */
import * as v from "valibot";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { describeIssues } from "../../protocol/jsonrpc.ts";
import { PluginManifest } from "../../protocol/manifest.ts";
import { LISTEN_FACILITY } from "../../protocol/plugin.ts";
import { jsonSchemaSettings, type PluginSettings } from "../../protocol/plugin-settings.ts";
import { BUILTIN_PLUGINS } from "../../generated/builtin-plugins.ts";
import type { PluginSpec } from "./supervisor.ts";
import type { Config } from "../config/config.ts";
import { isEmptySetting, valueAt } from "../config/values.ts";
import { readGrants } from "./grants.ts";
import { confineExternal } from "./sandbox.ts";

/** How this binary re-runs itself as `homed plugin NAME` (compiled, or under `bun run`). */
export function selfCommand(): string[] {
  return Bun.main.startsWith("/$bunfs") ? [process.execPath] : [process.execPath, Bun.main];
}

/** The built-in plugins, started in `cwd` with `env` (what only they get, e.g. HOMED_DATA). */
export function builtinSpecs(cwd: string, env: Record<string, string> = {}): PluginSpec[] {
  return BUILTIN_PLUGINS.map((manifest) => ({
    manifest,
    builtin: true,
    command: [...selfCommand(), "plugin", manifest.name],
    cwd,
    env,
  }));
}

/**
 * Whether a built-in plugin that binds the daemon's listen address (LISTEN_FACILITY) will start,
 * so the kernel checks the address before anything else.
 */
export function bindsListen(config: Config): boolean {
  return BUILTIN_PLUGINS.some((m) => m.provides.includes(LISTEN_FACILITY) && !config.plugins.disabled.includes(m.name));
}

/** The channels whose image tags memory believes: those of built-in plugins that declare `image_tags`. */
export function imageTagChannels(): string[] {
  return BUILTIN_PLUGINS.filter((m) => m.image_tags).flatMap((m) =>
    m.provides.filter((f) => f.startsWith("channel.")).map((f) => f.slice("channel.".length)),
  );
}

/** What built-in plugins keep secrets in (manifest `secret_data`): names at the top of the data folder. */
export function secretDataNames(): string[] {
  return BUILTIN_PLUGINS.flatMap((m) => m.secret_data);
}

/**
 * A `main` plugin runs on the Bun runtime this binary carries: the compiled homed behaves as
 * `bun` when BUN_BE_BUN=1 is in its environment (under `bun run src/main.ts` the executable is
 * bun itself, where the variable is harmless). `--no-install`: a plugin's imports resolve from
 * its folder's node_modules or fail with the package's name; Bun never fetches them from a
 * registry behind the owner's back.
 */
function bunRun(entry: string, args: string[]): Pick<PluginSpec, "command" | "env"> {
  return { command: [process.execPath, "run", "--no-install", entry, ...args], env: { BUN_BE_BUN: "1" } };
}

function blockedSpec(name: string, dir: string, problem: string): PluginSpec {
  const named = v.safeParse(PluginManifest, { name });
  const manifest = named.success ? named.output : v.parse(PluginManifest, { name: "invalid-plugin" });
  return { manifest, builtin: false, command: [], cwd: dir, problem };
}

/**
 * An external plugin's settings from its plugin.json: a JSON Schema, turned into the shape
 * built-in plugins declare in valibot, for the section [plugins.<name>]. A string is the reason
 * it was refused.
 */
function externalSettings(m: PluginManifest): PluginSettings | string | undefined {
  if (!m.settings) return undefined;
  const { schema, description, reload } = m.settings;
  if (!schema || m.settings.file || m.settings.section)
    return `plugin.json: settings of an external plugin are {"schema": {...}} (a JSON Schema) for [plugins.${m.name}], not a file or a section`;
  // [plugins] holds the daemon's own keys too; plugin names have no underscore, so only this one can clash.
  if (m.name === "disabled")
    return `plugin.json: a plugin named "disabled" cannot have settings ([plugins] disabled is taken)`;
  try {
    return jsonSchemaSettings({ schema, description, reload });
  } catch (err) {
    return `plugin.json: settings.schema.properties.${(err as Error).message}`;
  }
}

/** The manifest in DATA/plugins/<name>/plugin.json, or why it cannot be used. */
function readManifest(dir: string, name: string): PluginManifest | string {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, "plugin.json"), "utf8"));
  } catch (err) {
    return `plugin.json is not valid JSON: ${(err as Error).message}`;
  }
  const r = v.safeParse(PluginManifest, raw);
  if (!r.success) return `plugin.json: ${describeIssues(r.issues)}`;
  if (r.output.name !== name) return `plugin.json names "${r.output.name}" but lives in folder "${name}"`;
  return r.output;
}

/** Folders under DATA/plugins holding a plugin.json, by name (a dot folder is one being added). */
function pluginFolders(pluginsDir: string): string[] {
  if (!existsSync(pluginsDir)) return [];
  return readdirSync(pluginsDir)
    .sort()
    .filter(
      (name) =>
        !name.startsWith(".") &&
        statSync(join(pluginsDir, name)).isDirectory() &&
        existsSync(join(pluginsDir, name, "plugin.json")),
    );
}

/**
 * The [plugins.<name>] sections of the external plugins whose plugin.json and settings parse
 * (whether or not their program is there: their config.toml table stays valid meanwhile).
 */
export function externalSections(pluginsDir: string): { plugin: string; section: string; settings: PluginSettings }[] {
  const out: { plugin: string; section: string; settings: PluginSettings }[] = [];
  for (const name of pluginFolders(pluginsDir)) {
    const m = readManifest(join(pluginsDir, name), name);
    if (typeof m === "string") continue;
    const settings = externalSettings(m);
    if (settings && typeof settings !== "string") out.push({ plugin: name, section: `plugins.${name}`, settings });
  }
  return out;
}

/**
 * How the plugin in `dir` runs (or why it cannot), as the folder DATA/plugins/`name` would:
 * its manifest must name `name`, and its program must be there.
 */
export function folderSpec(dir: string, name: string): PluginSpec {
  const m = readManifest(dir, name);
  if (typeof m === "string") return blockedSpec(name, dir, m);
  const settings = externalSettings(m);
  if (typeof settings === "string") return blockedSpec(name, dir, settings);
  if (m.exec && m.main) return blockedSpec(name, dir, `plugin.json has both "exec" and "main": give one`);
  if (m.main) {
    const entry = join(dir, m.main);
    if (!existsSync(entry)) return blockedSpec(name, dir, `entry file ${entry} ("main") does not exist`);
    return { manifest: m, builtin: false, ...bunRun(entry, m.args), cwd: dir };
  }
  if (!m.exec)
    return blockedSpec(name, dir, `plugin.json has neither "exec" nor "main": which program runs the plugin?`);
  const exe = isAbsolute(m.exec) ? m.exec : join(dir, m.exec);
  if (!existsSync(exe)) return blockedSpec(name, dir, `executable ${exe} does not exist`);
  return { manifest: m, builtin: false, command: [exe, ...m.args], cwd: dir };
}

/** Every DATA/plugins/<name>/ folder with a plugin.json. */
export function externalSpecs(pluginsDir: string): PluginSpec[] {
  return pluginFolders(pluginsDir).map((name) => folderSpec(join(pluginsDir, name), name));
}

export interface ConfiguredOptions {
  /** Variables only built-in plugins get (HOMED_DATA; a test's clock). */
  builtinEnv: Record<string, string>;
  /** Where to look for bwrap. */
  searchPath: string | undefined;
  /** Told why DATA/plugins.json was not read (every added plugin then runs without network). */
  onGrantsProblem?: (problem: string) => void;
}

/**
 * Every plugin this daemon knows, built-in then installed (each external one in its room,
 * src/kernel/plugins/sandbox.ts), each marked disabled when config.toml's [plugins] disabled
 * names it or when the setting its manifest is `enabled_by` is empty (no MCP servers: no mcp
 * plugin).
 */
export function configuredSpecs(dataDir: string, config: Config, opts: ConfiguredOptions): PluginSpec[] {
  const disabled = new Set(config.plugins.disabled);
  const all = [...builtinSpecs(dataDir, opts.builtinEnv), ...externalSpecs(join(dataDir, "plugins"))].map((s) => {
    if (disabled.has(s.manifest.name)) return { ...s, disabled: "disabled in config.toml ([plugins] disabled)" };
    const by = s.manifest.enabled_by;
    const on = by ? valueAt(config, by) : true;
    if (by && on === false) return { ...s, disabled: `off until ${by} = true in config.toml` };
    if (by && isEmptySetting(on)) return { ...s, disabled: `not needed: ${by} is empty in config.toml` };
    return s;
  });
  const { grants, problem } = readGrants(dataDir);
  if (problem) opts.onGrantsProblem?.(problem);
  return confineExternal(all, { dataDir, mode: config.plugins.sandbox, grants, searchPath: opts.searchPath });
}
