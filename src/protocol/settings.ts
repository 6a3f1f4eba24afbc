/**
 * The settings the web UI edits besides the provider (which has llm/*): the system prompt, the
 * approval rules, memory's recall scope, and what the plugins' settings put on the page — the
 * controls several plugins share and the lists edited item by item (onSettingsPage, under
 * "page"), and every plugin's section a form can edit (settingForm, under "sections"). They are
 * kept in DATA/settings.json, which wins over config.toml field by field (like llm.json for
 * [llm]); a save is applied at once, like a SIGHUP, and the answer says what was applied and
 * what only a restart applies.
 */
import * as v from "valibot";
import { ITEM_KINDS, SETTING_KINDS, SETTINGS_RELOAD, SectionPath } from "./plugin-settings.ts";

export const SettingsMethod = {
  Get: "settings/get",
  Set: "settings/set",
  /** Add one tool name to approval.allow (the "always allow" of an approval card). */
  AllowTool: "settings/allow-tool",
  /** Re-read config.toml, llm.json and settings.json and apply them, as SIGHUP does. */
  Reload: "settings/reload",
} as const;

const Text = v.pipe(v.string(), v.maxLength(10_000, "a value is at most 10000 characters"));
const Strings = v.pipe(v.array(Text), v.maxLength(1000, "a list is at most 1000 items"));

/** A plugin setting's value as a form edits it (settingForm's kinds). */
const PluginValue = v.union(
  [v.boolean(), v.number(), Text, Strings],
  "must be true or false, a number, a string or a list of strings",
);

/** A field's name in config.toml, and a key of the page (onSettingsPage). */
const FieldName = v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]{0,63}$/, "a setting's name is lower_snake_case"));

/** A value of one field of a list's item as a form edits it (itemFields' kinds). */
const ItemValue = v.union(
  [
    v.boolean(),
    v.number(),
    Text,
    Strings,
    v.pipe(
      v.record(v.pipe(v.string(), v.maxLength(200, "a name is at most 200 characters")), Text),
      v.check((r) => Object.keys(r).length <= 100, "a table is at most 100 entries"),
    ),
  ],
  "must be true or false, a number, a string, a list of strings or a table of strings",
);

/** One item added to a list on the page: its fields by name ("name" among them). */
const Item = v.record(FieldName, ItemValue);

/**
 * A value under a page key: a shared control's (PluginValue), or a whole list of items as
 * settings.json keeps it (the kernel writes it from `list_edits`, config.toml's items copied in).
 */
const PageValue = v.union(
  [PluginValue, v.pipe(v.array(v.record(v.string(), v.unknown())), v.maxLength(100, "a list is at most 100 items"))],
  "must be true or false, a number, a string, a list of strings or a list of tables",
);

/** One change to a list on the page, the list named by its page key; an item is named by its `name`. */
export const ListEdit = v.union(
  [
    v.strictObject({ key: FieldName, add: Item }),
    v.strictObject({ key: FieldName, remove: v.pipe(v.string(), v.maxLength(200)) }),
  ],
  'a list edit is {"key", "add": {...}} or {"key", "remove": "<name>"}',
);
export type ListEdit = v.InferOutput<typeof ListEdit>;

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
   * The plugins' fields on the page by their page key (SettingsView.page and .lists): a shared
   * control's value is written to every plugin field with that key. A list is kept here whole,
   * replacing config.toml's, but a request changes it only through `list_edits`. null gives the
   * key back to config.toml (it is removed from settings.json).
   */
  page: v.optional(v.record(FieldName, v.nullable(PageValue))),
  /** Requests only: add an item to a list on the page, or remove one by name; the kernel turns them into `page`. */
  list_edits: v.optional(v.pipe(v.array(ListEdit), v.maxLength(20, "at most 20 list edits at once"))),
  /**
   * Plugins' settings by section and field, e.g. {"tools.fetch": {"max_kb": 512}}: only the
   * fields the page lists (SettingsView.plugins). null gives a field back to config.toml (it is
   * removed from settings.json).
   */
  sections: v.optional(v.record(SectionPath, v.record(FieldName, v.nullable(PluginValue)))),
});
export type SettingsPatch = v.InferOutput<typeof SettingsPatch>;

const Source = v.picklist(["settings.json", "config.toml", "default"]);

/** What a control's schema bounds (settingForm's integer, min, max and choices), on every kind of field the page shows. */
const FormBounds = {
  integer: v.optional(v.boolean()),
  min: v.optional(v.number()),
  max: v.optional(v.number()),
  choices: v.optional(v.array(v.union([v.string(), v.number()]))),
};

/** One field of a plugin's section as the page shows it: the control (settingForm) and the values. */
export const PluginSettingView = v.object({
  key: v.string(),
  /** The field's doc (fieldDoc). */
  doc: v.string(),
  kind: v.picklist(SETTING_KINDS),
  ...FormBounds,
  /** What config.toml and settings.json say now. */
  value: PluginValue,
  /** The value in force, when it is not `value` yet (the change waits for a restart). */
  running: v.optional(PluginValue),
  default: PluginValue,
  source: Source,
});
export type PluginSettingView = v.InferOutput<typeof PluginSettingView>;

/** A control the page shows under a page key (onSettingsPage), written to every plugin field with that key. */
export const PageFieldView = v.object({
  key: v.string(),
  /** The first label (and heading) the plugins' declarations give it. */
  label: v.string(),
  heading: v.string(),
  kind: v.picklist(SETTING_KINDS),
  ...FormBounds,
  /** What the files say now: a list is every field's items, once each (config.toml may give them different ones). */
  value: PluginValue,
  source: Source,
  /** The dotted config paths it is written to. */
  paths: v.array(v.string()),
});
export type PageFieldView = v.InferOutput<typeof PageFieldView>;

/** A field of a list's items on the page (itemFields): the control the Add form has for it. */
export const ItemFieldView = v.object({
  key: v.string(),
  doc: v.string(),
  kind: v.picklist(ITEM_KINDS),
  ...FormBounds,
  /** An item must give it (no default). */
  required: v.boolean(),
  default: v.optional(ItemValue),
});
export type ItemFieldView = v.InferOutput<typeof ItemFieldView>;

/** A list of [[tables]] the page edits item by item (onSettingsPage on a list of objects). */
export const ItemListView = v.object({
  key: v.string(),
  label: v.string(),
  /** Dotted, e.g. "mcp.servers". */
  path: v.string(),
  doc: v.string(),
  fields: v.array(ItemFieldView),
  /** The items the files give now, each with only `fields` (what the page never shows stays out). */
  items: v.array(v.record(v.string(), ItemValue)),
  source: Source,
});
export type ItemListView = v.InferOutput<typeof ItemListView>;

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
  /** Where each of the fields above came from: settings.json, config.toml (or its environment/flag) or default. */
  sources: v.record(v.string(), Source),
  /** The controls the plugins' settings put on the page under a key of theirs. */
  page: v.optional(v.array(PageFieldView), []),
  /** The lists of [[tables]] the plugins' settings put on the page. */
  lists: v.optional(v.array(ItemListView), []),
  /** Every plugin's section a form can edit, built-in and external (none of those carrying secrets). */
  plugins: v.optional(v.array(PluginSectionView), []),
  /**
   * Plugin fields settings.json holds that nothing on the page lists (a plugin removed since):
   * dotted paths of sections' fields, and bare page keys. They are ignored, and a Save sending
   * null for one removes it.
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
