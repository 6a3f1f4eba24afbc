/**
 * The plugins' parts of the settings page, named by no plugin and no field: what a plugin
 * declares is what it shows (made by the kernel from each plugin's settings declaration).
 * - "Plugins": one collapsible block per plugin section (SettingsView.plugins), a control per
 *   field by its kind. The page's one Save sends only the fields changed here, under "sections";
 *   a field settings.json holds can be marked "Use config.toml", and the Save then sends null for
 *   it, which removes it from settings.json and gives it back to config.toml (or the default).
 * - The controls several plugins share under a page key (SettingsView.page), sent under "page"
 *   by the same Save.
 * - The lists edited item by item (SettingsView.lists): the items with a Remove each and an Add
 *   form from the item's fields, each change saved at once.
 */
import { h } from "./dom.ts";
import type {
  ItemListView,
  PageFieldView,
  PluginSectionView,
  PluginSettingView,
} from "../../../src/protocol/settings.ts";

type Value = PluginSettingView["value"];
/** A value a control edits: a setting's, or a table of strings (a list's item field). */
type FormValue = Value | Record<string, string>;
/** A request's plugin fields: { "<section>": { "<field>": value or null } }. */
export type SectionsPatch = Record<string, Record<string, Value | null>>;

/** What a change of a section needs, in words (SETTINGS_RELOAD). */
const RELOAD_WORDS: Record<PluginSectionView["reload"], string> = {
  live: "applied at once",
  "plugin-restart": "a change restarts the plugin",
  "daemon-restart": "applied when homed restarts",
};

/** How a value reads in a hint ("" shows as empty, a list as its items, a table as its pairs). */
function shown(value: FormValue): string {
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none";
  if (typeof value === "object")
    return Object.keys(value).length
      ? Object.entries(value)
          .map(([k, v]) => `${k} = ${v}`)
          .join(", ")
      : "none";
  if (value === "") return "empty";
  return String(value);
}

/** One line per item, or per "name = value" pair of a table. */
const linesOf = (text: string) =>
  text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);

/** What a control needs to know of its field (settingForm's or itemFields' description). */
interface ControlSpec {
  kind: PluginSettingView["kind"] | "record";
  value: FormValue;
  integer?: boolean;
  min?: number;
  max?: number;
  choices?: (string | number)[];
}

/**
 * One field's control and how to read the value back as the API takes it; `attrs` name it
 * (data-setting, a placeholder).
 */
export function valueControl(
  f: ControlSpec,
  attrs: Record<string, string>,
): { el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; read(): FormValue } {
  if (f.kind === "boolean") {
    const box = h("input", { ...attrs, type: "checkbox", checked: f.value === true });
    return { el: box, read: () => box.checked };
  }
  if (f.kind === "number") {
    const bounds: Record<string, string> = { type: "number", step: f.integer ? "1" : "any" };
    if (f.min !== undefined) bounds.min = String(f.min);
    if (f.max !== undefined) bounds.max = String(f.max);
    const input = h("input", { ...attrs, ...bounds });
    input.value = String(f.value);
    // Left empty (or not a number): sent as typed, so the kernel says what it must be.
    return { el: input, read: () => (input.value.trim() === "" ? input.value : Number(input.value)) };
  }
  if (f.kind === "choice") {
    const choices = f.choices ?? [];
    const select = h(
      "select",
      attrs,
      ...choices.map((c, i) => h("option", { value: String(i) }, c === "" ? "(none)" : String(c))),
    );
    select.value = String(choices.indexOf(f.value as string | number));
    return { el: select, read: () => choices[Number(select.value)] ?? "" };
  }
  if (f.kind === "list") {
    const area = h("textarea", { placeholder: "one per line", ...attrs, rows: "2" });
    area.value = (f.value as string[]).join("\n");
    return { el: area, read: () => linesOf(area.value) };
  }
  if (f.kind === "record") {
    const area = h("textarea", { placeholder: "name = value, one per line", ...attrs, rows: "2" });
    area.value = Object.entries(f.value as Record<string, string>)
      .map(([k, v]) => `${k} = ${v}`)
      .join("\n");
    // A line without "=" is a name with an empty value: the kernel's schema says what it lacks.
    const read = () =>
      Object.fromEntries(
        linesOf(area.value).map((line) => {
          const at = line.indexOf("=");
          return at < 0 ? [line, ""] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        }),
      );
    return { el: area, read };
  }
  // A text that holds line breaks keeps them (a one-line input would drop them, and a Save would send that).
  const input = String(f.value).includes("\n")
    ? h("textarea", { ...attrs, rows: "3" })
    : h("input", { ...attrs, type: "text", autocomplete: "off" });
  input.value = String(f.value);
  return { el: input, read: () => input.value };
}

/** The controls under page keys: one row each (under its heading), and what the Save sends of them. */
export interface PageFieldsPart {
  el: HTMLElement;
  /** The values changed since the last paint, by page key, or undefined when none were. */
  changes(): Record<string, Value> | undefined;
  paint(fields: PageFieldView[]): void;
}

export function pageFieldsPart(fields: PageFieldView[]): PageFieldsPart {
  // Its rows and headings are the form's own children (display: contents), spaced like the others.
  const el = h("div", { class: "page-fields" });
  let readers: { field: PageFieldView; read(): FormValue }[] = [];
  const paint = (next: PageFieldView[]) => {
    readers = [];
    el.replaceChildren(
      ...next.flatMap((f) => {
        const c = valueControl(f, { id: `page-${f.key}`, "data-page": f.key });
        readers.push({ field: f, read: c.read });
        const source = h("span", { class: "source", "data-field": f.key }, f.source);
        const label = h("span", {}, `${f.label || f.key} `, source);
        return [
          f.heading ? h("h3", {}, f.heading) : null,
          f.kind === "boolean"
            ? h("label", { class: "check", for: c.el.id }, c.el, label)
            : h("label", { for: c.el.id }, label, c.el),
        ].filter((e) => e !== null);
      }),
    );
  };
  paint(fields);
  return {
    el,
    paint,
    changes() {
      const out: Record<string, Value> = {};
      for (const r of readers) {
        const value = r.read() as Value;
        if (JSON.stringify(value) !== JSON.stringify(r.field.value)) out[r.field.key] = value;
      }
      return Object.keys(out).length ? out : undefined;
    },
  };
}

/** A list edit as the API takes it: one item added, or one removed by name. */
export type ListEditBody = { key: string; add: Record<string, FormValue> } | { key: string; remove: string };

/**
 * A list edited item by item: its items (each with the fields that differ from their default)
 * and a Remove each, then an Add form with a control per item field. `edit` saves one change and
 * says whether it was taken (the Add form is then emptied).
 */
export function itemListPart(
  list: ItemListView,
  edit: (body: ListEditBody) => Promise<boolean>,
): { el: HTMLElement; paint(view: ItemListView): void } {
  const items = h("ul", { class: "item-list", "data-list": list.key });
  const defaultOf = (f: ItemListView["fields"][number]): FormValue =>
    f.default ??
    (f.kind === "boolean" ? false : f.kind === "list" ? [] : f.kind === "record" ? {} : f.kind === "number" ? 0 : "");
  const source = h("span", { class: "source", "data-field": list.key }, list.source);
  const paint = (view: ItemListView) => {
    source.textContent = view.source;
    items.replaceChildren(
      ...(view.items.length
        ? view.items.map((item) => {
            const name = String(item.name ?? "");
            const facts = view.fields
              .filter((f) => f.key !== "name" && item[f.key] !== undefined)
              .filter((f) => JSON.stringify(item[f.key]) !== JSON.stringify(defaultOf(f)))
              .map((f) =>
                h(
                  "span",
                  { class: "item-field", "data-key": f.key },
                  h("span", { class: "hint" }, `${f.key} `),
                  h("code", { class: "item-fact" }, shown(item[f.key] as FormValue)),
                ),
              );
            return h(
              "li",
              { "data-item": name },
              h("b", {}, name),
              ...facts,
              h(
                "button",
                {
                  type: "button",
                  class: "small remove-item",
                  onclick: () => void edit({ key: view.key, remove: name }),
                },
                "Remove",
              ),
            );
          })
        : [h("li", { class: "hint" }, `No ${view.label || "items"} yet.`)]),
    );
  };
  paint(list);

  let readers: { key: string; fallback: FormValue; required: boolean; read(): FormValue }[] = [];
  const form = h("div", { class: "item-add", "data-list": list.key });
  const paintForm = () => {
    readers = [];
    form.replaceChildren(
      ...list.fields.map((f) => {
        const fallback = defaultOf(f);
        const id = `add-${list.key}-${f.key}`;
        const c = valueControl(
          { ...f, value: fallback },
          { id, "data-item-field": f.key, ...(f.kind === "string" && f.doc ? { placeholder: f.doc } : {}) },
        );
        readers.push({ key: f.key, fallback, required: f.required, read: c.read });
        const name = h("code", {}, f.key);
        return f.kind === "boolean"
          ? h("label", { class: "check", for: id, title: f.doc }, c.el, name)
          : h("label", { for: id, title: f.doc }, name, c.el);
      }),
      h("button", { type: "button", class: "add-item", onclick: () => void add() }, "Add"),
    );
  };
  const add = async () => {
    // Only what differs from the default goes: the rest is the schema's default, as in config.toml.
    const item: Record<string, FormValue> = {};
    for (const r of readers) {
      const value = r.read();
      if (r.required || JSON.stringify(value) !== JSON.stringify(r.fallback)) item[r.key] = value;
    }
    if (await edit({ key: list.key, add: item })) paintForm();
  };
  paintForm();

  const el = h(
    "div",
    { class: "item-list-part", "data-list": list.key },
    h("h3", {}, `${list.label || list.path} `, source),
    items,
    form,
  );
  return { el, paint };
}

export interface PluginSettingsPart {
  el: HTMLElement;
  /**
   * The fields changed since the last paint (undefined when none were), and the page keys
   * settings.json holds unused that are marked to go (null each).
   */
  changes(): { sections?: SectionsPatch; page?: Record<string, null> };
  /** Show the kernel's answer after a Save (the open blocks stay open). */
  paint(sections: PluginSectionView[], unused?: string[]): void;
}

/**
 * The part, painted from `sections`; `unused` are what settings.json holds for nothing on the
 * page (SettingsView.unused: sections' fields dotted, page keys bare), which a Save can remove.
 */
export function pluginSettingsPart(sections: PluginSectionView[], unused: string[] = []): PluginSettingsPart {
  const el = h("div", { class: "plugin-settings", id: "plugin-settings" });
  let readers: { section: string; field: PluginSettingView; read(): Value | null }[] = [];
  /** The unused paths marked to go on the next Save. */
  let removing = new Set<string>();

  /** What settings.json keeps for plugins no longer there, with a way to let it go. */
  const unusedPart = (paths: string[]) => {
    if (paths.length === 0) return null;
    const remove = h("input", {
      type: "checkbox",
      id: "remove-unused",
      onchange: () => {
        removing = remove.checked ? new Set(paths) : new Set();
      },
    });
    return h(
      "div",
      { class: "unused-settings" },
      h(
        "p",
        { class: "hint" },
        "settings.json also holds settings that no plugin has now (its plugin removed or changed); they are ignored: ",
        ...paths.flatMap((p, i) => [i ? ", " : "", h("code", {}, p)]),
      ),
      h(
        "label",
        { class: "check", for: "remove-unused" },
        remove,
        h("span", {}, "Remove them from settings.json on Save"),
      ),
    );
  };

  const fieldRow = (s: PluginSectionView, f: PluginSettingView) => {
    const c = valueControl(f, { "data-setting": `${s.section}.${f.key}` });
    const source = h("span", { class: "source", "data-field": `${s.section}.${f.key}` }, f.source);
    // Marked, the field is sent as null on Save (and its control is set aside until then).
    let giveBack = false;
    readers.push({ section: s.section, field: f, read: () => (giveBack ? null : (c.read() as Value)) });
    const back =
      f.source === "settings.json"
        ? h(
            "button",
            {
              type: "button",
              class: "small use-config",
              title: "On Save, remove it from settings.json: config.toml's value (or the default) applies",
              onclick: (e: Event) => {
                giveBack = !giveBack;
                c.el.disabled = giveBack;
                (e.currentTarget as HTMLElement).textContent = giveBack ? "Keep settings.json's" : "Use config.toml";
                source.textContent = giveBack ? "config.toml on Save" : f.source;
              },
            },
            "Use config.toml",
          )
        : null;
    const hint = h(
      "span",
      { class: "field-doc" },
      f.doc,
      f.doc ? " " : "",
      h("span", { class: "default" }, `Default: ${shown(f.default)}.`),
      f.running === undefined
        ? null
        : h("span", { class: "pending" }, ` In force until a restart: ${shown(f.running)}.`),
    );
    const name = h("code", {}, f.key);
    // `for` names the control: without it the label's control would be the first inside it, the button.
    const id = `setting-${s.section}-${f.key}`.replace(/[^a-z0-9_-]/g, "-");
    c.el.id = id;
    if (f.kind === "boolean")
      return h("label", { class: "check", for: id }, c.el, h("span", {}, name, " ", source, back, h("br", {}), hint));
    return h("label", { for: id }, h("span", {}, name, " ", source, back), c.el, hint);
  };

  const paint = (next: PluginSectionView[], nextUnused: string[] = []) => {
    const open = new Set(
      [...el.querySelectorAll<HTMLDetailsElement>("details[open]")].map((d) => d.dataset.section ?? ""),
    );
    readers = [];
    removing = new Set();
    el.replaceChildren(
      ...(next.length
        ? next.map((s) =>
            h(
              "details",
              { class: "plugin-section", "data-section": s.section, open: open.has(s.section) },
              h(
                "summary",
                {},
                h("b", {}, s.plugin),
                h("code", { class: "section-path" }, `[${s.section}]`),
                s.builtin ? null : h("span", { class: "tag" }, "installed"),
                h("span", { class: "reload" }, RELOAD_WORDS[s.reload]),
              ),
              h(
                "div",
                { class: "plugin-fields" },
                s.doc ? h("p", { class: "hint" }, s.doc) : null,
                ...s.fields.map((f) => fieldRow(s, f)),
              ),
            ),
          )
        : [h("p", { class: "hint" }, "No plugin has settings to edit here.")]),
      ...[unusedPart(nextUnused)].filter((e) => e !== null),
    );
  };
  paint(sections, unused);

  return {
    el,
    paint,
    changes() {
      const out: SectionsPatch = {};
      const page: Record<string, null> = {};
      for (const r of readers) {
        const value = r.read();
        if (JSON.stringify(value) === JSON.stringify(r.field.value)) continue;
        out[r.section] = { ...out[r.section], [r.field.key]: value };
      }
      for (const path of removing) {
        // A section's name holds dots of its own ("tools.gone"); the field is the last part. A
        // page key has none.
        const dot = path.lastIndexOf(".");
        if (dot < 0) {
          page[path] = null;
          continue;
        }
        const section = path.slice(0, dot);
        out[section] = { ...out[section], [path.slice(dot + 1)]: null };
      }
      return {
        ...(Object.keys(out).length ? { sections: out } : {}),
        ...(Object.keys(page).length ? { page } : {}),
      };
    },
  };
}
