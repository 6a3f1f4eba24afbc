/**
 * settingForm reads how a form edits a plugin's field from the field's valibot schema alone:
 * the control from the base schema under v.optional and its pipes, the bounds from the integer,
 * min_value and max_value actions, the choices from a picklist; what a form cannot edit safely
 * (lists of tables, objects, records, unions, lists of non-strings) gets no control. itemFields
 * reads a list of named tables the same way, field by field, records of strings included.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  configFileOnly,
  itemFields,
  jsonSchemaSettings,
  onSettingsPage,
  setting,
  settingForm,
  tableList,
} from "../../src/protocol/plugin-settings.ts";

const int = (min: number, max: number) =>
  v.pipe(v.number("must be a number"), v.integer("must be an integer"), v.minValue(min), v.maxValue(max));

describe("settingForm", () => {
  test("scalars: boolean, number with its bounds, string, picklist", () => {
    expect(settingForm(setting(v.boolean(), false, "On."))).toEqual({ kind: "boolean" });
    expect(settingForm(setting(int(1, 4096), 200, "KiB."))).toEqual({
      kind: "number",
      integer: true,
      min: 1,
      max: 4096,
    });
    // A pipe of a pipe, and a number without integer or bounds.
    expect(settingForm(setting(v.pipe(v.pipe(v.number(), v.minValue(0.5))), 1, "Ratio."))).toEqual({
      kind: "number",
      min: 0.5,
    });
    expect(settingForm(setting(v.number(), 1, "Any."))).toEqual({ kind: "number" });
    // Kept to config.toml: no control, whatever its type.
    expect(settingForm(setting(configFileOnly(v.string()), "/usr/bin/mpv", "Player."))).toBeUndefined();
    expect(settingForm(setting(v.pipe(v.string(), v.regex(/^a/)), "a", "Text."))).toEqual({ kind: "string" });
    expect(settingForm(setting(v.picklist(["", "searxng", "brave"]), "", "Which."))).toEqual({
      kind: "choice",
      choices: ["", "searxng", "brave"],
    });
  });

  test("lists of strings are lists; anything else a form cannot edit gets no control", () => {
    expect(settingForm(setting(v.array(v.pipe(v.string(), v.maxLength(9))), [], "Hosts."))).toEqual({ kind: "list" });
    // A field on the page under a shared key is still a list by its schema (the caller leaves it out).
    expect(settingForm(setting(onSettingsPage(v.array(v.string()), "allow_hosts"), [], "Hosts."))).toEqual({
      kind: "list",
    });
    expect(settingForm(setting(tableList(v.array(v.strictObject({ name: v.string() }))), [], "Servers."))).toBe(
      undefined,
    );
    expect(settingForm(setting(v.array(v.strictObject({ name: v.string() })), [], "Peers."))).toBe(undefined);
    expect(settingForm(setting(v.array(v.number()), [], "Numbers."))).toBe(undefined);
    expect(settingForm(setting(v.array(v.picklist(["a", "b"])), [], "Picks."))).toBe(undefined);
    expect(settingForm(setting(v.record(v.string(), v.string()), {}, "Headers."))).toBe(undefined);
    expect(settingForm(setting(v.strictObject({ a: v.string() }), { a: "" }, "Table."))).toBe(undefined);
    expect(settingForm(setting(v.union([v.string(), v.number()]), "", "Either."))).toBe(undefined);
  });

  test("an external plugin's JSON Schema gives the same controls: enum as choices, minimum and maximum as bounds", () => {
    const s = jsonSchemaSettings({
      description: "",
      reload: "live",
      schema: {
        type: "object",
        properties: {
          units: { type: "string", description: "Units.", default: "metric", enum: ["metric", "imperial"] },
          refresh: { type: "integer", description: "Minutes.", default: 30, minimum: 1, maximum: 1440 },
          ratio: { type: "number", description: "Ratio.", default: 0.5 },
          quiet: { type: "boolean", description: "Quiet.", default: false },
          city: { type: "string", description: "City.", default: "Oslo", minLength: 1 },
          tags: { type: "array", description: "Tags.", default: [], items: { type: "string" } },
          levels: { type: "array", description: "Levels.", default: [], items: { type: "integer" } },
        },
      },
    });
    const forms = Object.fromEntries(Object.entries(s.schema.entries).map(([k, e]) => [k, settingForm(e)]));
    expect(forms).toEqual({
      units: { kind: "choice", choices: ["metric", "imperial"] },
      refresh: { kind: "number", integer: true, min: 1, max: 1440 },
      ratio: { kind: "number" },
      quiet: { kind: "boolean" },
      city: { kind: "string" },
      tags: { kind: "list" },
      levels: undefined,
    });
    // The picklist and the bounds still refuse with the messages config.toml gave before.
    const issue = (value: unknown) => v.safeParse(s.schema, value).issues?.[0]?.message;
    expect(issue({ units: "kelvin" })).toBe("must be one of metric, imperial");
    expect(issue({ refresh: 0 })).toBe("must be at least 1");
    expect(issue({ refresh: 1441 })).toBe("must be at most 1440");
    expect(issue({ refresh: 2.5 })).toBe("must be an integer");
  });
});

describe("itemFields", () => {
  const Peer = v.pipe(
    v.strictObject({
      port: setting(int(1, 65535), 80, "Port."),
      name: v.pipe(v.string(), v.regex(/^[a-z]+$/), v.description("Its name.")),
      tags: setting(v.array(v.string()), [], "Tags."),
      secrets: setting(v.record(v.string(), v.pipe(v.string(), v.regex(/^[a-z]+$/))), {}, "Secret names."),
      token: setting(configFileOnly(v.string()), "", "A credential: config.toml only."),
      nested: setting(v.strictObject({ a: v.string() }), { a: "" }, "A table."),
    }),
    v.check(() => true),
  );

  test("a list of named tables: its fields a form edits, name first, none kept to config.toml", () => {
    const fields = itemFields(setting(tableList(onSettingsPage(v.array(Peer), "peers", "Peers")), [], "Peers."));
    expect(fields?.map((f) => [f.key, f.form.kind, f.required])).toEqual([
      ["name", "string", true],
      ["port", "number", false],
      ["tags", "list", false],
      ["secrets", "record", false],
    ]);
    expect(fields?.[0]?.doc).toBe("Its name.");
    expect(fields?.[1]).toMatchObject({ form: { kind: "number", integer: true, min: 1, max: 65535 }, fallback: 80 });
  });

  test("anything but a list of tables with a string name is not one", () => {
    expect(itemFields(setting(v.array(v.string()), [], "Hosts."))).toBeUndefined();
    expect(itemFields(setting(v.array(v.strictObject({ id: v.string() })), [], "Unnamed."))).toBeUndefined();
    expect(itemFields(setting(v.array(v.strictObject({ name: v.number() })), [], "Numbered."))).toBeUndefined();
    expect(itemFields(setting(v.string(), "", "Text."))).toBeUndefined();
  });
});
