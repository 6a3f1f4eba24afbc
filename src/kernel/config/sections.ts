/**
 * The sections of config.toml that plugins own: the built-in ones composed at build time from
 * each manifest's settings module (src/generated/builtin-settings.ts), and those of external
 * plugins, from the JSON Schema in their plugin.json, read when the configuration is. The
 * kernel's config code works from this list alone and names no plugin.
 */
import type { PluginSettings } from "../../protocol/plugin-settings.ts";
import { HomedError } from "../../protocol/errors.ts";
import { fieldKernelRead, type KernelRead } from "../../protocol/kernel-reads.ts";
import { BUILTIN_SETTINGS } from "../../generated/builtin-settings.ts";
import { externalSections } from "../plugins/catalog.ts";
import { valueAt } from "./values.ts";

export { isEmptySetting, valueAt } from "./values.ts";

/** A built-in plugin's section, as the generator writes it. */
export interface BuiltinSection {
  plugin: string;
  /** Dotted path in config.toml, e.g. "tools.<name>". */
  section: string;
  settings: PluginSettings;
}

export interface SettingsSection extends BuiltinSection {
  builtin: boolean;
}

/** The built-in plugins' sections, then those of the external plugins installed in `pluginsDir`. */
export function settingsSections(pluginsDir?: string): SettingsSection[] {
  const builtin = BUILTIN_SETTINGS.map((s) => ({ ...s, builtin: true }));
  const external = pluginsDir ? externalSections(pluginsDir).map((s) => ({ ...s, builtin: false })) : [];
  return [...builtin, ...external];
}

/** Set the dotted `path` of a configuration whose parent tables exist. */
export function setValueAt(config: unknown, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  const parent = keys.reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, config as never);
  parent[last] = value;
}

/** Whether `path` is the section or lies inside it. */
export function inSection(path: string, section: string): boolean {
  return path === section || path.startsWith(`${section}.`);
}

/** What reading a section needs from the daemon. */
export interface SectionReadDeps {
  sections: readonly SettingsSection[];
  isBuiltin(plugin: string): boolean;
  secretValues(): Record<string, string>;
  passThrough(names: readonly string[]): Record<string, string>;
  loginToken(): string;
}

/** What reading a section needs, from the kernel's services. */
export function sectionReadDeps(k: {
  settingsSections: readonly SettingsSection[];
  plugins: { isBuiltin(name: string): boolean };
  secretValues(): Record<string, string>;
  passThrough(names: readonly string[]): Record<string, string>;
  readonly loginToken: string;
}): SectionReadDeps {
  return {
    sections: k.settingsSections,
    isBuiltin: (name) => k.plugins.isBuiltin(name),
    secretValues: () => k.secretValues(),
    passThrough: (names) => k.passThrough(names),
    loginToken: () => k.loginToken,
  };
}

/**
 * The value of the field a built-in section declares the kernel reads for `what` (kernelReads),
 * or undefined when none does (that plugin is not in this build).
 */
export function declaredValue(config: unknown, sections: readonly SettingsSection[], what: KernelRead): unknown {
  for (const s of sections) {
    if (!s.builtin) continue;
    for (const [key, entry] of Object.entries(s.settings.schema.entries))
      if (fieldKernelRead(entry) === what) return valueAt(config, `${s.section}.${key}`);
  }
  return undefined;
}

/** A section's value as `plugin` may see it: the owner's `*_secret` names and resolve hook applied for a built-in owner. */
function resolvedFor(plugin: string, s: SettingsSection, value: unknown, deps: SectionReadDeps): unknown {
  if (!s.builtin || s.plugin !== plugin || !deps.isBuiltin(plugin)) return value;
  let out = value as Record<string, unknown>;
  const named = Object.entries(out).filter(([k, name]) => k.endsWith("_secret") && typeof name === "string" && name);
  if (named.length > 0) {
    // config.toml names the secret, DATA/secrets.json holds it: only its owner gets the one value.
    const secrets = deps.secretValues();
    out = { ...out };
    for (const [k, name] of named) out[k.slice(0, -"_secret".length)] = secrets[name as string] ?? "";
  }
  return s.settings.resolve
    ? s.settings.resolve(out as never, {
        secrets: deps.secretValues,
        passThrough: deps.passThrough,
        loginToken: deps.loginToken,
      })
    : out;
}

/**
 * What config/get answers `plugin` for a plugin-owned section, or a table holding some (e.g.
 * "tools"); undefined when `path` is neither (the kernel's own sections are answered by the
 * caller). A section marked builtinOnly, or an external plugin's section read by another
 * plugin, is refused.
 */
export function pluginSectionFor(
  plugin: string,
  path: string,
  config: unknown,
  deps: SectionReadDeps,
): unknown | undefined {
  const touched = deps.sections.filter((s) => inSection(s.section, path) || inSection(path, s.section));
  if (touched.length === 0) return undefined;
  for (const s of touched) {
    if (s.settings.builtinOnly && !deps.isBuiltin(plugin))
      throw new HomedError("forbidden", `the ${path} section is reserved to built-in plugins`);
    // An external plugin's section is read whole, by its own plugin alone (not through [plugins]).
    if (!s.builtin && (s.plugin !== plugin || path !== s.section))
      throw new HomedError("forbidden", `the ${s.section} section is plugin ${s.plugin}'s own`);
  }
  const inside = touched.find((s) => inSection(path, s.section) && path !== s.section);
  if (inside) throw new HomedError("invalid_params", `read the whole ${inside.section} section`);
  const value = structuredClone(valueAt(config, path));
  for (const s of touched) {
    if (s.section === path) return resolvedFor(plugin, s, value, deps);
    const rel = s.section.slice(path.length + 1);
    const inner = valueAt(value, rel);
    if (inner !== undefined) setValueAt(value, rel, resolvedFor(plugin, s, inner, deps));
  }
  return value;
}
