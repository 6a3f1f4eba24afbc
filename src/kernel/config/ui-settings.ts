/**
 * DATA/settings.json: what the web UI changed of config.toml's [agent] system_prompt, [approval]
 * default/allow/ask/deny, [memory] recall_untrusted, the plugins' fields their settings put
 * on the page (fetch's and the browser's allow_hosts, one list for both; the MCP servers): a
 * field shown under a page key (onSettingsPage) is written to every plugin field with that key;
 * and any other field of a plugin's section a form can edit (settingForm), under "sections".
 * A section marked builtinOnly (tokens, secrets) is not on the page. One precedence, field by field:
 * settings.json, else config.toml (with its HOMED_* and flag overrides), else the default — as
 * llm.json does for [llm]. The file holds only the fields the UI set; the result is checked with
 * config.toml's own schema, so a bad value is refused with the message config.toml would get.
 */
import * as v from "valibot";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../../protocol/errors.ts";
import { describeIssues } from "../../protocol/jsonrpc.ts";
import { firstBadUtf8, jsonErrorPlace, placeOf } from "../../shared/json-where.ts";
import {
  type PluginSectionView,
  type PluginSettingView,
  SettingsPatch,
  type SettingsField,
  type SettingsView,
} from "../../protocol/settings.ts";
import {
  fieldDoc,
  fieldPageKey,
  fieldPageLabel,
  type SettingForm,
  settingForm,
} from "../../protocol/plugin-settings.ts";
import { configSchema, type Config } from "./config.ts";
import { type SettingsSection, setValueAt, valueAt } from "./sections.ts";

/**
 * Fields settings.json keeps under their own name; mcp_add and mcp_remove are requests the kernel
 * turns into mcp_servers, and "sections" holds the plugins' other fields.
 */
type StoredField = Exclude<SettingsField, "mcp_add" | "mcp_remove" | "sections">;

/** A plugin's section on the page: the fields a form edits, by name. */
interface FormSection {
  section: SettingsSection;
  fields: Map<string, { entry: v.GenericSchema; form: SettingForm }>;
}

/** The kernel's own fields on the page and where they live in config.toml. */
const KERNEL_FIELDS: Partial<Record<StoredField, string[]>> = {
  system_prompt: ["agent.system_prompt"],
  approval_default: ["approval.default"],
  approval_allow: ["approval.allow"],
  approval_ask: ["approval.ask"],
  approval_deny: ["approval.deny"],
  recall_untrusted: ["memory.recall_untrusted"],
};

/**
 * The settings page as the plugins' settings make it: each field's dotted paths in config.toml
 * (a plugin field is on the page when its settings give it a page key) and the labels the
 * plugins give those fields there.
 */
export class SettingsPage {
  readonly paths: Partial<Record<StoredField, string[]>> = { ...KERNEL_FIELDS };
  readonly labels: Partial<Record<StoredField, string>> = {};
  readonly fields: StoredField[];
  /** The plugins' sections a form edits, by dotted name, in the order of `sections`. */
  readonly forms = new Map<string, FormSection>();
  private readonly schema: ReturnType<typeof configSchema>;
  private readonly defaults: Config;

  constructor(readonly sections: readonly SettingsSection[]) {
    const known = new Set(Object.keys(SettingsPatch.entries).filter((k) => k !== "sections"));
    for (const s of sections) {
      const form: FormSection = { section: s, fields: new Map() };
      for (const [key, entry] of Object.entries(s.settings.schema.entries)) {
        const field = fieldPageKey(entry) as StoredField | undefined;
        if (!field || !known.has(field)) {
          // Not on the page under a key of its own: in the plugin's section, if a form can edit it.
          const control = settingForm(entry);
          if (control && !s.settings.builtinOnly) form.fields.set(key, { entry, form: control });
          continue;
        }
        this.paths[field] = [...(this.paths[field] ?? []), `${s.section}.${key}`];
        if (!this.labels[field] && fieldPageLabel(entry)) this.labels[field] = fieldPageLabel(entry);
      }
      if (form.fields.size > 0) this.forms.set(s.section, form);
    }
    this.fields = Object.keys(this.paths) as StoredField[];
    this.schema = configSchema(sections);
    this.defaults = v.parse(this.schema, {});
  }

  /** The field's values in `config`, one per path. */
  valuesAt(config: Config, field: StoredField): unknown[] {
    return (this.paths[field] ?? []).map((path) => valueAt(config, path));
  }

  /**
   * config.toml's configuration with the patch over it, checked as config.toml is. A plugin
   * field the page does not list (its plugin removed since, say) is passed over: settings.json
   * keeps it, and the other fields still apply.
   */
  apply(base: Config, patch: SettingsPatch): Config {
    const raw = structuredClone(base) as unknown as Record<string, unknown>;
    for (const field of this.fields) {
      const value = patch[field];
      if (value === undefined) continue;
      for (const path of this.paths[field] ?? []) setValueAt(raw, path, value);
    }
    for (const [section, fields] of Object.entries(patch.sections ?? {})) {
      const form = this.forms.get(section);
      for (const [key, value] of Object.entries(fields))
        if (value !== null && form?.fields.has(key)) setValueAt(raw, `${section}.${key}`, value);
    }
    const r = v.safeParse(this.schema, raw);
    if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
    return r.output;
  }

  /**
   * The plugin fields settings.json holds that the page does not list (their plugin removed or
   * changed since), as dotted paths: apply passes them over, the page offers to remove them.
   */
  unused(stored: SettingsPatch): string[] {
    const out: string[] = [];
    for (const [section, fields] of Object.entries(stored.sections ?? {}))
      for (const key of Object.keys(fields))
        if (!this.forms.get(section)?.fields.has(key)) out.push(`${section}.${key}`);
    return out;
  }

  /**
   * Refuse a request's plugin fields the page does not list: an unknown section or field, or one
   * the page leaves out (a builtinOnly section, a list of tables, an object). A null for a field
   * settings.json holds unused (`unused`) is a removal, and passes.
   */
  checkSections(patch: SettingsPatch, stored: SettingsPatch = {}): void {
    const removable = new Set(this.unused(stored));
    for (const [section, fields] of Object.entries(patch.sections ?? {})) {
      const entries = Object.entries(fields);
      const removals = entries.every(([key, value]) => value === null && removable.has(`${section}.${key}`));
      if (entries.length > 0 && removals) continue;
      const form = this.forms.get(section);
      if (!form) {
        const owned = this.sections.some((s) => s.section === section);
        throw new HomedError(
          "invalid_params",
          owned
            ? `${section}: this section is not edited on the settings page`
            : `${section}: no plugin has this section`,
        );
      }
      for (const [key, value] of Object.entries(fields)) {
        if (form.fields.has(key) || (value === null && removable.has(`${section}.${key}`))) continue;
        const declared = key in form.section.settings.schema.entries;
        throw new HomedError(
          "invalid_params",
          `${section}.${key}: ${declared ? "not edited in this part of the settings page" : "unknown setting"}`,
        );
      }
    }
  }

  /**
   * Turn mcp_add / mcp_remove into the whole list (mcp_servers), from the servers in force now.
   * A name already taken, or one that is not there, is refused.
   */
  resolveServerEdits(patch: SettingsPatch, current: Config): SettingsPatch {
    const { mcp_add, mcp_remove, ...rest } = patch;
    if (!mcp_add && mcp_remove === undefined) return rest;
    const inForce = (this.valuesAt(current, "mcp_servers")[0] ?? []) as Record<string, unknown>[];
    let list: Record<string, unknown>[] = (rest.mcp_servers ?? inForce).map((s) => ({ ...s }));
    if (mcp_remove !== undefined) {
      if (!list.some((s) => s.name === mcp_remove))
        throw new HomedError("not_found", `no MCP server named ${mcp_remove}`);
      list = list.filter((s) => s.name !== mcp_remove);
    }
    if (mcp_add) {
      if (list.some((s) => s.name === mcp_add.name))
        throw new HomedError("invalid_params", `an MCP server named ${mcp_add.name} exists already`);
      list.push(Object.fromEntries(Object.entries(mcp_add).filter(([, v]) => v !== undefined && v !== "")));
    }
    return { ...rest, mcp_servers: list };
  }

  /**
   * The effective values and where each came from. `configured` is what the files say now
   * (base with the patch over it): a plugin field shows it, and the value in force too while
   * they differ (a change that waits for a restart).
   */
  view(base: Config, effective: Config, patch: SettingsPatch, configured: Config = effective): SettingsView {
    const sources: SettingsView["sources"] = {};
    for (const field of this.fields) {
      if (patch[field] !== undefined) sources[field] = "settings.json";
      else
        sources[field] =
          JSON.stringify(this.valuesAt(base, field)) === JSON.stringify(this.valuesAt(this.defaults, field))
            ? "default"
            : "config.toml";
    }
    const servers = (this.valuesAt(effective, "mcp_servers")[0] ?? []) as ServerSummary[];
    return {
      system_prompt: effective.agent.system_prompt,
      approval_default: effective.approval.default,
      approval_allow: effective.approval.allow,
      approval_ask: effective.approval.ask,
      approval_deny: effective.approval.deny,
      recall_untrusted: effective.memory.recall_untrusted,
      // One list on the page: config.toml may give the fields behind it different ones.
      allow_hosts: [...new Set((this.valuesAt(effective, "allow_hosts") as string[][]).flat())],
      sources,
      labels: this.labels,
      mcp_servers: servers.map((s) => ({
        name: s.name,
        transport: s.url ? ("http" as const) : ("stdio" as const),
        target: s.url || [s.command, ...s.args].join(" "),
      })),
      plugins: [...this.forms.values()].map((f) => this.sectionView(f, base, effective, patch, configured)),
      unused: this.unused(patch),
    };
  }

  private sectionView(
    f: FormSection,
    base: Config,
    effective: Config,
    patch: SettingsPatch,
    configured: Config,
  ): PluginSectionView {
    const s = f.section;
    const fields = [...f.fields].map(([key, { entry, form }]): PluginSettingView => {
      const path = `${s.section}.${key}`;
      const fallback = valueAt(this.defaults, path);
      const stored = patch.sections?.[s.section]?.[key];
      const value = valueAt(configured, path) as PluginSettingView["value"];
      const running = valueAt(effective, path) as PluginSettingView["value"];
      return {
        key,
        // Lines are kept in initconfig's template; a form shows the doc as one paragraph.
        doc: fieldDoc(entry).replace(/\s*\n\s*/g, " "),
        ...form,
        value,
        ...(JSON.stringify(running) !== JSON.stringify(value) ? { running } : {}),
        default: fallback as PluginSettingView["value"],
        source:
          stored !== undefined && stored !== null
            ? "settings.json"
            : JSON.stringify(valueAt(base, path)) === JSON.stringify(fallback)
              ? "default"
              : "config.toml",
      };
    });
    return {
      plugin: s.plugin,
      section: s.section,
      doc: s.settings.doc,
      reload: s.settings.reload,
      builtin: s.builtin,
      fields,
    };
  }
}

/** What the page lists of an MCP server. */
interface ServerSummary {
  name: string;
  url: string;
  command: string;
  args: string[];
}

export function settingsFile(dataDir: string): string {
  return join(dataDir, "settings.json");
}

/**
 * The patch in DATA/settings.json; a missing file is none. One that cannot be read, is not UTF-8
 * JSON or holds what no setting takes is a HomedError("config") naming the file and the line, as
 * a bad config.toml is: ignoring it would drop the approval rules the owner saved (a deny among
 * them) without a word.
 */
export function readSettingsPatch(dataDir: string): SettingsPatch {
  const file = settingsFile(dataDir);
  if (!existsSync(file)) return {};
  const bad = (why: string, cause?: unknown): never => {
    throw new HomedError("config", `${file}: ${why}`, { file }, cause ? { cause } : undefined);
  };
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (err) {
    return bad(`cannot read: ${(err as Error).message}`, err);
  }
  let text = "";
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const at = firstBadUtf8(bytes);
    const line = 1 + bytes.subarray(0, at).filter((b) => b === 10).length;
    bad(`line ${line}: not UTF-8 (byte ${at}); fix or remove the file (the settings page writes it again)`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const at = jsonErrorPlace(text);
    bad(`${at ? `line ${at.line}, column ${at.column}: ` : ""}not valid JSON (${(err as Error).message})`, err);
  }
  const r = v.safeParse(SettingsPatch, raw);
  if (!r.success) {
    const key = r.issues[0]?.path?.[0]?.key;
    const found = typeof key === "string" ? text.indexOf(JSON.stringify(key)) : -1;
    bad(`${found >= 0 ? `line ${placeOf(text, found).line}: ` : ""}${describeIssues(r.issues)}`);
  }
  return (r as v.SafeParseResult<typeof SettingsPatch> & { success: true }).output;
}

/**
 * settings.json's patch with a request's over it: a field replaces the stored one; the plugins'
 * sections merge field by field, a null removing the field (and a section left empty).
 */
export function mergeSettingsPatch(current: SettingsPatch, patch: SettingsPatch): SettingsPatch {
  const next: SettingsPatch = { ...current, ...patch };
  if (!patch.sections) return next;
  const sections = structuredClone(current.sections ?? {});
  for (const [name, fields] of Object.entries(patch.sections)) {
    const merged = { ...sections[name] };
    for (const [key, value] of Object.entries(fields)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
    if (Object.keys(merged).length > 0) sections[name] = merged;
    else delete sections[name];
  }
  if (Object.keys(sections).length > 0) next.sections = sections;
  else delete next.sections;
  return next;
}

/** Write settings.json (0600, atomically); the caller has checked `next` with SettingsPage.apply. */
export function writeSettingsPatch(dataDir: string, next: SettingsPatch): void {
  const file = settingsFile(dataDir);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Dotted paths of every leaf that differs between two configurations. */
export function changedPaths(a: unknown, b: unknown): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string) => {
    const isObj = (o: unknown) => typeof o === "object" && o !== null && !Array.isArray(o);
    if (isObj(x) && isObj(y)) {
      const keys = new Set([...Object.keys(x as object), ...Object.keys(y as object)]);
      for (const k of keys)
        walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    } else if (JSON.stringify(x) !== JSON.stringify(y)) out.push(path);
  };
  walk(a, b, "");
  return out;
}
