/**
 * The "Plugins" part of the settings page: one collapsible block per plugin section the kernel
 * lists (SettingsView.plugins, made from each plugin's settings declaration), a control per
 * field by its kind. It names no plugin and no field: what a plugin declares is what it shows.
 * The page's one Save sends only the fields changed here, under "sections"; a field settings.json
 * holds can be marked "Use config.toml", and the Save then sends null for it, which removes it
 * from settings.json and gives it back to config.toml (or the default).
 */
import { h } from "./dom.ts";
import type { PluginSectionView, PluginSettingView } from "../../../src/protocol/settings.ts";

type Value = PluginSettingView["value"];
/** A request's plugin fields: { "<section>": { "<field>": value or null } }. */
export type SectionsPatch = Record<string, Record<string, Value | null>>;

/** What a change of a section needs, in words (SETTINGS_RELOAD). */
const RELOAD_WORDS: Record<PluginSectionView["reload"], string> = {
  live: "applied at once",
  "plugin-restart": "a change restarts the plugin",
  "daemon-restart": "applied when homed restarts",
};

/** How a value reads in a hint ("" shows as empty, a list as its items). */
function shown(value: Value): string {
  if (Array.isArray(value)) return value.length ? value.join(", ") : "none";
  if (value === "") return "empty";
  return String(value);
}

/** One field's control and how to read the value back as the API takes it. */
function control(
  section: string,
  f: PluginSettingView,
): { el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement; read(): Value } {
  const path = `${section}.${f.key}`;
  if (f.kind === "boolean") {
    const box = h("input", { type: "checkbox", "data-setting": path, checked: f.value === true });
    return { el: box, read: () => box.checked };
  }
  if (f.kind === "number") {
    const attrs: Record<string, string> = { type: "number", "data-setting": path, step: f.integer ? "1" : "any" };
    if (f.min !== undefined) attrs.min = String(f.min);
    if (f.max !== undefined) attrs.max = String(f.max);
    const input = h("input", attrs);
    input.value = String(f.value);
    // Left empty (or not a number): sent as typed, so the kernel says what it must be.
    return { el: input, read: () => (input.value.trim() === "" ? input.value : Number(input.value)) };
  }
  if (f.kind === "choice") {
    const choices = f.choices ?? [];
    const select = h(
      "select",
      { "data-setting": path },
      ...choices.map((c, i) => h("option", { value: String(i) }, c === "" ? "(none)" : String(c))),
    );
    select.value = String(choices.indexOf(f.value as string | number));
    return { el: select, read: () => choices[Number(select.value)] ?? "" };
  }
  if (f.kind === "list") {
    const area = h("textarea", { "data-setting": path, rows: "2", placeholder: "one per line" });
    area.value = (f.value as string[]).join("\n");
    return {
      el: area,
      read: () =>
        area.value
          .split("\n")
          .map((s) => s.trim())
          .filter(Boolean),
    };
  }
  // A text that holds line breaks keeps them (a one-line input would drop them, and a Save would send that).
  const input = String(f.value).includes("\n")
    ? h("textarea", { "data-setting": path, rows: "3" })
    : h("input", { type: "text", "data-setting": path, autocomplete: "off" });
  input.value = String(f.value);
  return { el: input, read: () => input.value };
}

export interface PluginSettingsPart {
  el: HTMLElement;
  /** The fields changed since the last paint, or undefined when none were. */
  changes(): SectionsPatch | undefined;
  /** Show the kernel's answer after a Save (the open blocks stay open). */
  paint(sections: PluginSectionView[], unused?: string[]): void;
}

/**
 * The part, painted from `sections`; `unused` are the dotted paths settings.json holds for no
 * section on the page (SettingsView.unused), which a Save can remove.
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
    const c = control(s.section, f);
    const source = h("span", { class: "source", "data-field": `${s.section}.${f.key}` }, f.source);
    // Marked, the field is sent as null on Save (and its control is set aside until then).
    let giveBack = false;
    readers.push({ section: s.section, field: f, read: () => (giveBack ? null : c.read()) });
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
      for (const r of readers) {
        const value = r.read();
        if (JSON.stringify(value) === JSON.stringify(r.field.value)) continue;
        out[r.section] = { ...out[r.section], [r.field.key]: value };
      }
      for (const path of removing) {
        // A section's name holds dots of its own ("tools.gone"); the field is the last part.
        const dot = path.lastIndexOf(".");
        const section = path.slice(0, dot);
        out[section] = { ...out[section], [path.slice(dot + 1)]: null };
      }
      return Object.keys(out).length ? out : undefined;
    },
  };
}
