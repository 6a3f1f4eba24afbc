/**
 * A plugin's settings: the one section of config.toml it owns, declared next to its code. A
 * built-in plugin exports them from `plugins/<name>/settings.ts` (valibot, named in its
 * manifest); an external one gives a JSON Schema in its plugin.json (jsonSchemaSettings below
 * turns it into the same shape). From these the kernel composes config.toml's schema,
 * `homed initconfig`'s commented template, the settings page's fields and what a reload does
 * with a change — no plugin is named in the kernel's config code.
 */
import * as v from "valibot";

/**
 * What a change of the section needs once config.toml is reloaded:
 * - `live`: the kernel applies it and sends the running plugin `config/changed` (a plugin that
 *   reads its settings at each use simply gets the new ones next time);
 * - `plugin-restart`: the plugin is restarted (or started, when its `enabled_by` setting was
 *   just filled) and reads them at start;
 * - `daemon-restart`: nothing changes until homed restarts; the reload names the paths.
 */
export const SETTINGS_RELOAD = ["live", "plugin-restart", "daemon-restart"] as const;
export type SettingsReload = (typeof SETTINGS_RELOAD)[number];

/** A section's schema: an object whose every field is optional with a default (v.optional). */
export type SectionSchema = v.GenericSchema<Record<string, unknown>, Record<string, unknown>> & {
  readonly entries: Record<string, v.GenericSchema>;
};

/** What the kernel may resolve for the built-in plugin that owns a section before handing it over. */
export interface SettingsResolveContext {
  /** DATA/secrets.json's named values, read now. */
  secrets(): Record<string, string>;
  /** The values of these daemon environment variables that are set. */
  passThrough(names: readonly string[]): Record<string, string>;
  /** The login token in force: the one the owner set, or the one generated into DATA/web-token. */
  loginToken(): string;
}

export interface PluginSettings<S extends SectionSchema = SectionSchema> {
  /** What the section is for: the comment above its table in initconfig's template (lines kept). */
  doc: string;
  /** Every field optional with a default and a description (`setting()`), so an empty table is valid. */
  schema: S;
  reload: SettingsReload;
  /**
   * Only built-in plugins may read it (config/get): it carries tokens or resolved secrets. The
   * owner's `*_secret` fields (names of DATA/secrets.json values) are resolved for a built-in
   * owner alone, as `*` beside them.
   */
  builtinOnly?: boolean;
  /**
   * A built-in plugin's own resolution of what config.toml only names (secrets, environment
   * passthrough), run by the kernel when the owner reads the section; built-in plugins only.
   */
  resolve?(value: v.InferOutput<S>, ctx: SettingsResolveContext): unknown;
}

/** A plugin's settings, typed (an identity: the declaration is the value). */
export function defineSettings<S extends SectionSchema>(settings: PluginSettings<S>): PluginSettings<S> {
  return settings;
}

/**
 * One field: its schema, its default, and the sentence(s) the template writes above it and the
 * settings page shows beside it (newlines are kept in the template, joined on the page).
 */
export function setting<const S extends v.GenericSchema, const D extends v.InferInput<S>>(
  schema: S,
  fallback: D,
  doc: string,
) {
  return v.optional(v.pipe(schema, v.description(doc)), fallback);
}

/**
 * A whole number from `min` to `max`, each bound refused with a sentence ("must be at least 1")
 * that config.toml's error and the settings page's message show as they are.
 */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return v.pipe(
    v.number("must be a number"),
    v.integer("must be an integer"),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );
}

/** Metadata keys: which control of the settings page shows a field, its label and the heading above it. */
export const SETTINGS_PAGE_KEY = "homed.page";
export const SETTINGS_PAGE_LABEL = "homed.page-label";
export const SETTINGS_PAGE_HEADING = "homed.page-heading";
/** Metadata key: a list written as [[section.field]] tables, so the template shows it only as a comment. */
export const SETTINGS_TABLES_KEY = "homed.tables";

/**
 * Mark a list of tables that config.toml spells as `[[section.field]]`: the template writes only
 * its doc (with an example), since `field = []` there would clash with the tables a person adds.
 */
export function tableList<const S extends v.GenericSchema>(schema: S) {
  return v.pipe(schema, v.metadata({ [SETTINGS_TABLES_KEY]: true }));
}

/**
 * Mark a field as shown on the web settings page under `key` (lower_snake_case, the key of
 * SettingsPatch.page and SettingsView.page) with `label`, under `heading` when given:
 * - fields of several plugins with one key are one control there, written to each of them (e.g.
 *   the private hosts both fetch_url and the browser may reach), labelled and headed by the first
 *   plugin that gives a label or a heading;
 * - a list of objects with a `name` (a list of [[tables]]) is edited item by item there: the
 *   current items with a Remove each and an Add form with a control per item field a form can
 *   edit (itemFields), its label the list's heading. Mark with configFileOnly the item fields
 *   whose values may be credentials: the page never shows nor accepts them.
 */
export function onSettingsPage<const S extends v.GenericSchema>(schema: S, key: string, label = "", heading = "") {
  return v.pipe(
    schema,
    v.metadata({ [SETTINGS_PAGE_KEY]: key, [SETTINGS_PAGE_LABEL]: label, [SETTINGS_PAGE_HEADING]: heading }),
  );
}

/** Every action on a field's schema: inside v.optional, and through pipes of pipes. */
function pipeOf(entry: unknown): unknown[] {
  const node = entry as { pipe?: unknown[]; wrapped?: unknown };
  const out: unknown[] = [];
  if (node.wrapped) out.push(...pipeOf(node.wrapped));
  for (const [i, item] of (node.pipe ?? []).entries()) {
    if (i === 0 && item !== entry) out.push(...pipeOf(item));
    else out.push(item);
  }
  return out;
}

/** A field's doc string ("" when it has none). */
export function fieldDoc(entry: v.GenericSchema): string {
  for (const a of pipeOf(entry)) {
    const action = a as { type?: string; description?: string };
    if (action.type === "description" && typeof action.description === "string") return action.description;
  }
  return "";
}

export function fieldMetadata(entry: v.GenericSchema, key: string): unknown {
  for (const a of pipeOf(entry)) {
    const action = a as { type?: string; metadata?: Record<string, unknown> };
    if (action.type === "metadata" && action.metadata?.[key] !== undefined) return action.metadata[key];
  }
  return undefined;
}

/** The settings-page key a field is shown under, if any. */
export function fieldPageKey(entry: v.GenericSchema): string | undefined {
  const key = fieldMetadata(entry, SETTINGS_PAGE_KEY);
  return typeof key === "string" ? key : undefined;
}

/** The label a field gives its control on the settings page ("" for none). */
export function fieldPageLabel(entry: v.GenericSchema): string {
  const label = fieldMetadata(entry, SETTINGS_PAGE_LABEL);
  return typeof label === "string" ? label : "";
}

/** The heading a field gives its control on the settings page ("" for none). */
export function fieldPageHeading(entry: v.GenericSchema): string {
  const heading = fieldMetadata(entry, SETTINGS_PAGE_HEADING);
  return typeof heading === "string" ? heading : "";
}

/** Metadata key: a field set in config.toml only, never from the settings page (configFileOnly). */
export const SETTINGS_FILE_ONLY_KEY = "homed.file-only";

/**
 * Mark a field the settings page must not edit: one that decides which program the daemon runs
 * (an executable's path) or how far commands are confined (the sandbox). A logged-in page can
 * change the approval rules, but not turn the sandbox off or point a plugin at another binary;
 * that takes the owner's shell and config.toml.
 */
export function configFileOnly<const S extends v.GenericSchema>(schema: S) {
  return v.pipe(schema, v.metadata({ [SETTINGS_FILE_ONLY_KEY]: true }));
}

/** Whether a field is a list of [[tables]] (tableList). */
export function fieldIsTableList(entry: v.GenericSchema): boolean {
  return fieldMetadata(entry, SETTINGS_TABLES_KEY) === true;
}

/** The controls a form has for a setting (see settingForm). */
export const SETTING_KINDS = ["boolean", "number", "string", "choice", "list"] as const;
export type SettingKind = (typeof SETTING_KINDS)[number];

/** How a form edits one field: the control, and the bounds or choices its schema declares. */
export interface SettingForm {
  kind: SettingKind;
  /** number: whole numbers only (v.integer). */
  integer?: boolean;
  /** number: v.minValue / v.maxValue. */
  min?: number;
  max?: number;
  /** choice: the picklist's options. */
  choices?: (string | number)[];
}

type Node = { type?: string; kind?: string; wrapped?: unknown; pipe?: unknown[]; item?: unknown; options?: unknown[] };

/** The schema under v.optional and pipes: the one that says what the value is. */
function baseOf(entry: unknown): Node {
  let node = entry as Node;
  for (;;) {
    if (node.type === "optional" && node.wrapped) node = node.wrapped as Node;
    else if (node.pipe?.[0] && node.pipe[0] !== node) node = node.pipe[0] as Node;
    else return node;
  }
}

/** A picklist's options, whether it is the base schema or a schema later in the pipe (as jsonSchemaSettings puts an enum). */
function choicesOf(entry: unknown): (string | number)[] | undefined {
  const base = baseOf(entry);
  if (base.type === "picklist") return base.options as (string | number)[];
  for (const item of pipeOf(entry)) {
    const n = item as Node;
    if (n.kind === "schema" && n.type === "picklist") return n.options as (string | number)[];
  }
  return undefined;
}

/**
 * How a form edits a field, read from its schema (v.optional → pipes → the base schema, and the
 * integer / min_value / max_value actions on the way); undefined for what a form cannot edit
 * safely: a list of [[tables]] (tableList), a field kept to config.toml (configFileOnly),
 * objects, records, unions, lists of anything but strings.
 */
export function settingForm(entry: v.GenericSchema): SettingForm | undefined {
  if (fieldIsTableList(entry) || fieldMetadata(entry, SETTINGS_FILE_ONLY_KEY) === true) return undefined;
  const base = baseOf(entry);
  const choices = choicesOf(entry);
  if (choices) return { kind: "choice", choices: [...choices] };
  if (base.type === "boolean") return { kind: "boolean" };
  if (base.type === "string") return { kind: "string" };
  if (base.type === "array") {
    const item = baseOf(base.item);
    return item.type === "string" && !choicesOf(base.item) ? { kind: "list" } : undefined;
  }
  if (base.type !== "number") return undefined;
  const form: SettingForm = { kind: "number" };
  for (const a of pipeOf(entry)) {
    const action = a as { kind?: string; type?: string; requirement?: unknown };
    if (action.kind !== "validation") continue;
    if (action.type === "integer") form.integer = true;
    if (action.type === "min_value" && typeof action.requirement === "number")
      form.min = Math.max(action.requirement, form.min ?? -Infinity);
    if (action.type === "max_value" && typeof action.requirement === "number")
      form.max = Math.min(action.requirement, form.max ?? Infinity);
  }
  return form;
}

/** The controls a form has for a field of a list's item: settingForm's, and a record of strings. */
export const ITEM_KINDS = [...SETTING_KINDS, "record"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/** How a form edits one field of a list's items (onSettingsPage on a list of objects). */
export interface ItemField {
  key: string;
  /** Its doc (fieldDoc), one paragraph. */
  doc: string;
  form: Omit<SettingForm, "kind"> & { kind: ItemKind };
  /** No default: an item must give it (the `name` does). */
  required: boolean;
  /** The value an item that leaves the field out gets. */
  fallback?: unknown;
}

/** A record whose keys and values are strings (with pipes of their own, e.g. a pattern). */
function isStringRecord(base: Node): boolean {
  const node = base as Node & { key?: unknown; value?: unknown };
  return base.type === "record" && baseOf(node.key).type === "string" && baseOf(node.value).type === "string";
}

/**
 * The fields a form edits of a list's items, when `entry` is a list of objects each named by a
 * string `name` (undefined otherwise): those settingForm gives a control, and records of strings
 * (e.g. header names to secret names); never a field kept to config.toml (configFileOnly), so a
 * field whose values may be credentials stays out of the page both ways. `name` comes first.
 */
export function itemFields(entry: v.GenericSchema): ItemField[] | undefined {
  const list = baseOf(entry);
  if (list.type !== "array") return undefined;
  const item = baseOf(list.item) as Node & { entries?: Record<string, v.GenericSchema> };
  if ((item.type !== "strict_object" && item.type !== "object") || !item.entries) return undefined;
  if (!item.entries.name || baseOf(item.entries.name).type !== "string") return undefined;
  const out: ItemField[] = [];
  for (const [key, field] of Object.entries(item.entries)) {
    if (fieldMetadata(field, SETTINGS_FILE_ONLY_KEY) === true) continue;
    const control = settingForm(field) ?? (isStringRecord(baseOf(field)) ? { kind: "record" as const } : undefined);
    if (!control) continue;
    const optional = (field as Node).type === "optional";
    const fallback = (field as { default?: unknown }).default;
    out.push({
      key,
      doc: fieldDoc(field).replace(/\s*\n\s*/g, " "),
      form: control,
      required: !optional,
      ...(optional && typeof fallback !== "function" && fallback !== undefined ? { fallback } : {}),
    });
  }
  return out.sort((a, b) => Number(b.key === "name") - Number(a.key === "name"));
}

/** A dotted config path, e.g. "tools.fetch" or "plugins.weather". */
export const SectionPath = v.pipe(
  v.string(),
  v.regex(/^[a-z_][a-z0-9_-]*(\.[a-z_][a-z0-9_-]*)*$/, "must be a dotted config path such as tools.fetch"),
);

/** The notification a running plugin gets when its section changed on a reload. */
export const ConfigChangedParams = v.object({
  section: v.string(),
  /** The section as config/get answers it now. */
  value: v.unknown(),
  /** Dotted paths under the section that changed. */
  changed: v.array(v.string()),
});
export type ConfigChangedParams = v.InferOutput<typeof ConfigChangedParams>;

// ——— external plugins: a JSON Schema in plugin.json ———

const Scalar = v.picklist(["string", "number", "integer", "boolean"]);
const JsonScalar = v.union([v.string(), v.number(), v.boolean()]);

/** One property of an external plugin's settings: the subset of JSON Schema a setting needs. */
export const JsonSettingProperty = v.pipe(
  v.strictObject({
    type: v.picklist(["string", "number", "integer", "boolean", "array"]),
    description: v.optional(v.pipe(v.string(), v.maxLength(2000))),
    default: v.optional(
      v.union([JsonScalar, v.array(JsonScalar)], "must be a string, number, boolean or a list of them"),
    ),
    enum: v.optional(v.pipe(v.array(JsonScalar), v.minLength(1))),
    minimum: v.optional(v.number()),
    maximum: v.optional(v.number()),
    minLength: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    maxLength: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    pattern: v.optional(v.string()),
    items: v.optional(v.strictObject({ type: Scalar })),
  }),
  // An empty table must be a valid configuration, and the template and the page say what each is.
  v.check((p) => p.default !== undefined, "needs a default"),
  v.check((p) => !!p.description, "needs a description"),
);
export type JsonSettingProperty = v.InferOutput<typeof JsonSettingProperty>;

/** An external plugin's settings: a JSON Schema of an object (JsonSettingProperty per property). */
export const JsonSettingsSchema = v.strictObject({
  type: v.literal("object"),
  properties: v.pipe(
    v.record(
      v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]{0,63}$/, "property names are lower_snake_case")),
      JsonSettingProperty,
    ),
    v.check((p) => Object.keys(p).length > 0, "needs at least one property"),
  ),
  additionalProperties: v.optional(v.literal(false)),
});

/**
 * plugin.json's "settings". A built-in plugin names its section and the module in its folder
 * that exports SETTINGS ({"section": "tools.fetch", "file": "settings.ts"}); an external one gives
 * a JSON Schema ({"schema": {...}}, its section [plugins.<name>]) with a description and what a
 * change needs.
 */
export const ManifestSettings = v.pipe(
  v.strictObject({
    section: v.optional(SectionPath),
    file: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9-]+\.ts$/, "must be a .ts file in the plugin's folder"))),
    /** External: what the section is for (the comment above [plugins.<name>] in the template). */
    description: v.optional(v.pipe(v.string(), v.maxLength(2000)), ""),
    /** External: what a change needs (see SETTINGS_RELOAD). */
    reload: v.optional(v.picklist(SETTINGS_RELOAD, `must be one of ${SETTINGS_RELOAD.join(", ")}`), "plugin-restart"),
    schema: v.optional(JsonSettingsSchema),
  }),
  v.check(
    (s) => (s.file !== undefined) !== (s.schema !== undefined),
    'give "file" (a built-in plugin\'s settings.ts, with "section") or "schema" (a JSON Schema), one of them',
  ),
);
export type ManifestSettings = v.InferOutput<typeof ManifestSettings>;

/** An external plugin's settings as plugin.json gives them. */
export const JsonSettings = v.strictObject({
  description: v.optional(v.string(), ""),
  reload: v.optional(v.picklist(SETTINGS_RELOAD), "plugin-restart"),
  schema: JsonSettingsSchema,
});
export type JsonSettings = v.InferOutput<typeof JsonSettings>;

function scalarSchema(type: v.InferOutput<typeof Scalar>): v.GenericSchema {
  if (type === "string") return v.string("must be a string");
  if (type === "boolean") return v.boolean("must be true or false");
  if (type === "integer") return v.pipe(v.number("must be a number"), v.integer("must be an integer"));
  return v.number("must be a number");
}

function propertySchema(name: string, p: JsonSettingProperty): v.GenericSchema {
  const base = p.type === "array" ? v.array(scalarSchema(p.items?.type ?? "string")) : scalarSchema(p.type);
  const checks: v.PipeItem<unknown, unknown, v.BaseIssue<unknown>>[] = [];
  // A picklist and min/max actions rather than checks: settingForm reads them for the settings page.
  if (p.enum) {
    const allowed = p.enum;
    const message = `must be one of ${allowed.join(", ")}`;
    checks.push(
      allowed.every((x) => typeof x !== "boolean")
        ? (v.picklist(allowed as (string | number)[], message) as never)
        : v.check((x) => allowed.includes(x as never), message),
    );
  }
  if (p.minimum !== undefined) checks.push(v.minValue(p.minimum, `must be at least ${p.minimum}`) as never);
  if (p.maximum !== undefined) checks.push(v.maxValue(p.maximum, `must be at most ${p.maximum}`) as never);
  if (p.minLength !== undefined)
    checks.push(
      v.check((x) => (x as string).length >= (p.minLength as number), `must be at least ${p.minLength} characters`),
    );
  if (p.maxLength !== undefined)
    checks.push(
      v.check((x) => (x as string).length <= (p.maxLength as number), `must be at most ${p.maxLength} characters`),
    );
  if (p.pattern !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(p.pattern, "u");
    } catch (err) {
      throw new Error(`${name}: pattern is not a regular expression: ${(err as Error).message}`);
    }
    checks.push(v.check((x) => re.test(x as string), `must match ${p.pattern}`));
  }
  const schema =
    checks.length > 0 ? v.pipe(base, ...(checks as [v.PipeItem<unknown, unknown, v.BaseIssue<unknown>>])) : base;
  const r = v.safeParse(schema, p.default);
  if (!r.success)
    throw new Error(`${name}: its default ${JSON.stringify(p.default)} ${r.issues[0]?.message ?? "is invalid"}`);
  return setting(schema, p.default as never, p.description ?? "");
}

/**
 * An external plugin's JSON-Schema settings as PluginSettings. Throws (Error, with the property
 * named) when a default does not fit its own schema or a pattern is not a regular expression.
 */
export function jsonSchemaSettings(json: JsonSettings): PluginSettings {
  const entries: Record<string, v.GenericSchema> = {};
  for (const [name, p] of Object.entries(json.schema.properties)) entries[name] = propertySchema(name, p);
  return { doc: json.description, schema: v.strictObject(entries) as unknown as SectionSchema, reload: json.reload };
}
