/**
 * DATA/settings.json: what the web UI changed of config.toml's [agent] system_prompt, [approval]
 * default/allow/ask/deny, [memory] recall_untrusted, and the plugins' fields, as their settings
 * declare them (no plugin is named here):
 * - a field shown under a page key (onSettingsPage) is kept under "page": a shared control's
 *   value is written to every plugin field with that key; a list of objects is edited item by
 *   item (the request's list_edits) and kept whole, replacing config.toml's;
 * - any other field of a plugin's section a form can edit (settingForm), under "sections".
 * A section marked builtinOnly (tokens, secrets) has no form, but its fields declared on the page
 * are there. One precedence, field by field: settings.json, else config.toml (with its HOMED_* and
 * flag overrides), else the default — as llm.json does for [llm]. The file holds only the fields
 * the UI set; the result is checked with config.toml's own schema, so a bad value is refused with
 * the message config.toml would get.
 */
import * as v from "valibot";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../../protocol/errors.ts";
import { describeIssues } from "../../protocol/jsonrpc.ts";
import { firstBadUtf8, jsonErrorPlace, placeOf } from "../../shared/json-where.ts";
import {
  type ItemListView,
  type PageFieldView,
  type PluginSectionView,
  type PluginSettingView,
  SettingsPatch,
  type SettingsView,
} from "../../protocol/settings.ts";
import {
  fieldDoc,
  fieldPageHeading,
  fieldPageKey,
  fieldPageLabel,
  type ItemField,
  itemFields,
  type SettingForm,
  settingForm,
} from "../../protocol/plugin-settings.ts";
import { configSchema, type Config } from "./config.ts";
import { type SettingsSection, setValueAt, valueAt } from "./sections.ts";

/** The kernel's own fields on the page, by their name in SettingsPatch, and where they live in config.toml. */
const KERNEL_FIELDS = {
  system_prompt: "agent.system_prompt",
  approval_default: "approval.default",
  approval_allow: "approval.allow",
  approval_ask: "approval.ask",
  approval_deny: "approval.deny",
  recall_untrusted: "memory.recall_untrusted",
} as const;
type KernelField = keyof typeof KERNEL_FIELDS;

/** A plugin's section on the page: the fields a form edits, by name. */
interface FormSection {
  section: SettingsSection;
  fields: Map<string, { entry: v.GenericSchema; form: SettingForm }>;
}

/** One control under a page key, written to every plugin field declared with it. */
interface SharedField {
  key: string;
  paths: string[];
  label: string;
  heading: string;
  form: SettingForm;
}

/** A list of objects under a page key, edited item by item. */
interface ItemList {
  key: string;
  path: string;
  label: string;
  doc: string;
  fields: ItemField[];
}

type Item = Record<string, unknown>;

/** The name an item is added and removed by. */
const nameOf = (item: Item) => (typeof item.name === "string" ? item.name : "");

/**
 * The settings page as the plugins' settings make it: the controls under page keys (shared by
 * several plugins' fields, or one list edited item by item), each section's other fields a form
 * can edit, and the labels and headings the plugins give them.
 */
export class SettingsPage {
  /** Controls under a page key, by key. */
  readonly shared = new Map<string, SharedField>();
  /** Lists edited item by item, by page key. */
  readonly lists = new Map<string, ItemList>();
  /** The plugins' sections a form edits, by dotted name, in the order of `sections`. */
  readonly forms = new Map<string, FormSection>();
  private readonly schema: ReturnType<typeof configSchema>;
  private readonly defaults: Config;

  /** Throws (Error) when two plugins declare one page key for a list and for another field: a declaration mistake. */
  constructor(readonly sections: readonly SettingsSection[]) {
    for (const s of sections) {
      const form: FormSection = { section: s, fields: new Map() };
      for (const [key, entry] of Object.entries(s.settings.schema.entries)) {
        const path = `${s.section}.${key}`;
        const pageKey = fieldPageKey(entry);
        if (!pageKey) {
          // Not on the page under a key: in the plugin's section, if a form can edit it.
          const control = settingForm(entry);
          if (control && !s.settings.builtinOnly) form.fields.set(key, { entry, form: control });
          continue;
        }
        const items = itemFields(entry);
        const control = settingForm(entry);
        const taken = this.lists.get(pageKey) ?? (items ? this.shared.get(pageKey) : undefined);
        if (taken || (!items && !control))
          throw new Error(
            `${path}: ${taken ? `page key ${pageKey} is another field's already` : "a form cannot edit this field"}`,
          );
        if (items) {
          const label = fieldPageLabel(entry) || fieldPageHeading(entry);
          const doc = fieldDoc(entry).replace(/\s*\n\s*/g, " ");
          this.lists.set(pageKey, { key: pageKey, path, label, doc, fields: items });
          continue;
        }
        const shared = this.shared.get(pageKey) ?? {
          key: pageKey,
          paths: [],
          label: "",
          heading: "",
          form: control as SettingForm,
        };
        shared.paths.push(path);
        shared.label ||= fieldPageLabel(entry);
        shared.heading ||= fieldPageHeading(entry);
        this.shared.set(pageKey, shared);
      }
      if (form.fields.size > 0) this.forms.set(s.section, form);
    }
    this.schema = configSchema(sections);
    this.defaults = v.parse(this.schema, {});
  }

  /**
   * config.toml's configuration with the patch over it, checked as config.toml is. A plugin
   * field the page does not list (its plugin removed since, say) is passed over: settings.json
   * keeps it, and the other fields still apply.
   */
  apply(base: Config, patch: SettingsPatch): Config {
    const raw = structuredClone(base) as unknown as Record<string, unknown>;
    for (const [field, path] of Object.entries(KERNEL_FIELDS)) {
      const value = patch[field as KernelField];
      if (value !== undefined) setValueAt(raw, path, value);
    }
    for (const [key, value] of Object.entries(patch.page ?? {})) {
      if (value === null) continue;
      for (const path of this.pathsOf(key)) setValueAt(raw, path, value);
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

  /** The dotted config paths a page key writes (none for a key no plugin declares). */
  private pathsOf(key: string): string[] {
    const list = this.lists.get(key);
    return list ? [list.path] : (this.shared.get(key)?.paths ?? []);
  }

  /**
   * The plugin fields settings.json holds that the page does not list (their plugin removed or
   * changed since): sections' fields as dotted paths, page keys bare. apply passes them over, the
   * page offers to remove them.
   */
  unused(stored: SettingsPatch): string[] {
    const out: string[] = [];
    for (const key of Object.keys(stored.page ?? {})) if (this.pathsOf(key).length === 0) out.push(key);
    for (const [section, fields] of Object.entries(stored.sections ?? {}))
      for (const key of Object.keys(fields))
        if (!this.forms.get(section)?.fields.has(key)) out.push(`${section}.${key}`);
    return out;
  }

  /**
   * Refuse a request's plugin fields the page does not list: an unknown page key, section or
   * field, or one the page leaves out (a builtinOnly section, a list of tables, an object). A null
   * for a field settings.json holds unused (`unused`) is a removal, and passes.
   */
  checkSections(patch: SettingsPatch, stored: SettingsPatch = {}): void {
    const removable = new Set(this.unused(stored));
    for (const [key, value] of Object.entries(patch.page ?? {}))
      if (this.pathsOf(key).length === 0 && !(value === null && removable.has(key)))
        throw new HomedError("invalid_params", `${key}: nothing on the settings page has this key`);
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
   * Turn a request's list_edits into the whole lists under "page", from the items in force now
   * (`current`): an item added gives only fields the page edits (so never a value kept to
   * config.toml, a credential among them) under a name not taken; one removed must be there.
   * A request may not set a list whole (null, giving it back to config.toml, it may). The
   * result is checked with the section's schema by apply, so a bad item gets its message.
   */
  resolveListEdits(request: SettingsPatch, current: Config): SettingsPatch {
    const { list_edits, ...patch } = request;
    for (const [key, value] of Object.entries(patch.page ?? {}))
      if (value !== null && this.lists.has(key))
        throw new HomedError("invalid_params", `${key}: a list is changed one item at a time (list_edits)`);
    if (!list_edits?.length) return patch;
    const page = { ...patch.page };
    for (const edit of list_edits) {
      const list = this.lists.get(edit.key);
      if (!list) throw new HomedError("invalid_params", `${edit.key}: no list on the settings page has this key`);
      const what = list.label || list.path;
      const before = page[edit.key];
      let items: Item[] = (Array.isArray(before) ? before : (valueAt(current, list.path) as Item[])).map((i) => ({
        ...(i as Item),
      }));
      if ("remove" in edit) {
        if (!items.some((i) => nameOf(i) === edit.remove))
          throw new HomedError("not_found", `${what}: none is named ${edit.remove}`);
        items = items.filter((i) => nameOf(i) !== edit.remove);
      } else {
        const edited = new Set(list.fields.map((f) => f.key));
        for (const field of Object.keys(edit.add))
          if (!edited.has(field))
            throw new HomedError("invalid_params", `${list.path}.${field}: not edited on the settings page`);
        const name = nameOf(edit.add);
        if (name && items.some((i) => nameOf(i) === name))
          throw new HomedError("invalid_params", `${what}: one is named ${name} already`);
        items.push(edit.add);
      }
      page[edit.key] = items;
    }
    return { ...patch, page };
  }

  /** Where a value comes from: settings.json when it holds one, else config.toml when it differs from the default. */
  private sourceOf(stored: unknown, base: Config, paths: readonly string[]): PluginSettingView["source"] {
    if (stored !== undefined && stored !== null) return "settings.json";
    const at = (c: Config) => JSON.stringify(paths.map((p) => valueAt(c, p)));
    return at(base) === at(this.defaults) ? "default" : "config.toml";
  }

  /**
   * The effective values and where each came from. `configured` is what the files say now
   * (base with the patch over it): a plugin field shows it, and the value in force too while
   * they differ (a change that waits for a restart).
   */
  view(base: Config, effective: Config, patch: SettingsPatch, configured: Config = effective): SettingsView {
    const sources: SettingsView["sources"] = {};
    for (const [field, path] of Object.entries(KERNEL_FIELDS))
      sources[field] = this.sourceOf(patch[field as KernelField], base, [path]);
    const page = [...this.shared.values()].map((f): PageFieldView => {
      const values = f.paths.map((path) => valueAt(configured, path));
      return {
        key: f.key,
        label: f.label,
        heading: f.heading,
        ...f.form,
        // One control on the page: config.toml may give the fields behind it different values.
        value: (f.form.kind === "list"
          ? [...new Set((values as string[][]).flat())]
          : values[0]) as PageFieldView["value"],
        source: this.sourceOf(patch.page?.[f.key], base, f.paths),
        paths: f.paths,
      };
    });
    const lists = [...this.lists.values()].map((l): ItemListView => {
      const shown = (item: Item) =>
        Object.fromEntries(l.fields.filter((f) => item[f.key] !== undefined).map((f) => [f.key, item[f.key]]));
      return {
        key: l.key,
        label: l.label,
        path: l.path,
        doc: l.doc,
        fields: l.fields.map((f) => ({
          key: f.key,
          doc: f.doc,
          ...f.form,
          required: f.required,
          ...(f.fallback !== undefined ? { default: f.fallback as ItemListView["fields"][number]["default"] } : {}),
        })),
        items: ((valueAt(configured, l.path) ?? []) as Item[]).map(shown) as ItemListView["items"],
        source: this.sourceOf(patch.page?.[l.key], base, [l.path]),
      };
    });
    return {
      system_prompt: effective.agent.system_prompt,
      approval_default: effective.approval.default,
      approval_allow: effective.approval.allow,
      approval_ask: effective.approval.ask,
      approval_deny: effective.approval.deny,
      recall_untrusted: effective.memory.recall_untrusted,
      sources,
      page,
      lists,
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
      const value = valueAt(configured, path) as PluginSettingView["value"];
      const running = valueAt(effective, path) as PluginSettingView["value"];
      return {
        key,
        // Lines are kept in initconfig's template; a form shows the doc as one paragraph.
        doc: fieldDoc(entry).replace(/\s*\n\s*/g, " "),
        ...form,
        value,
        ...(JSON.stringify(running) !== JSON.stringify(value) ? { running } : {}),
        default: valueAt(this.defaults, path) as PluginSettingView["value"],
        source: this.sourceOf(patch.sections?.[s.section]?.[key], base, [path]),
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
  // settings.json written before "page" existed kept the plugins' page fields at the top level,
  // beside the kernel's: every top-level key SettingsPatch does not know is one of those, under
  // the same page key it has now (a plugin's declaration, so it is not named here).
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    const older = Object.keys(record).filter((k) => !(k in SettingsPatch.entries));
    if (older.length > 0) {
      const page = { ...(record.page as Record<string, unknown>) };
      for (const key of older) {
        page[key] ??= record[key];
        delete record[key];
      }
      record.page = page;
    }
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
 * settings.json's patch with a request's over it: a field replaces the stored one; the page keys
 * and the plugins' sections merge key by key, a null removing the key (and a section left empty).
 */
export function mergeSettingsPatch(current: SettingsPatch, patch: SettingsPatch): SettingsPatch {
  const { list_edits: _, ...next }: SettingsPatch = { ...current, ...patch };
  if (patch.page) {
    const page = { ...current.page };
    for (const [key, value] of Object.entries(patch.page)) {
      if (value === null) delete page[key];
      else page[key] = value;
    }
    if (Object.keys(page).length > 0) next.page = page;
    else delete next.page;
  }
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
