/**
 * The settings page's plugin sections, from the plugins' settings declarations: which sections
 * and fields it lists, and how a patch's "sections" apply — settings.json over config.toml over
 * the default, field by field; a null gives the field back; a bad value is refused with
 * config.toml's message; an unknown section or field is refused by name. SettingsPage and the
 * patch merge are pure functions of their arguments, called directly here; the daemon's own
 * route is test/web/plugin-settings.test.ts.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { configSchema, type Config } from "../../src/kernel/config/config.ts";
import { type SettingsSection, settingsSections, valueAt } from "../../src/kernel/config/sections.ts";
import { mergeSettingsPatch, SettingsPage } from "../../src/kernel/config/ui-settings.ts";
import { defineSettings, jsonSchemaSettings, setting } from "../../src/protocol/plugin-settings.ts";

/** An external plugin's section, as plugin.json's JSON Schema gives it. */
const weather: SettingsSection = {
  plugin: "weather",
  section: "plugins.weather",
  builtin: false,
  settings: jsonSchemaSettings({
    description: "Where the weather plugin looks.",
    reload: "live",
    schema: {
      type: "object",
      properties: {
        city: { type: "string", description: "The city\nto report on.", default: "Oslo", minLength: 1 },
        units: { type: "string", description: "Units.", default: "metric", enum: ["metric", "imperial"] },
      },
    },
  }),
};
/** A built-in section holding nothing a form edits: not listed. */
const tables: SettingsSection = {
  plugin: "kite",
  section: "tools.kite",
  builtin: true,
  settings: defineSettings({
    doc: "",
    schema: v.strictObject({ lines: setting(v.record(v.string(), v.string()), {}, "Lines.") }),
    reload: "live",
  }),
};
const sections = [...settingsSections(), weather, tables];
const page = new SettingsPage(sections);
const defaults = v.parse(configSchema(sections), {}) as Config;
/** config.toml's configuration: fetch's timeout set there. */
const base = v.parse(configSchema(sections), { tools: { fetch: { timeout_ms: 5000 } } }) as Config;

const sectionOf = (view: ReturnType<SettingsPage["view"]>, name: string) =>
  view.plugins.find((s) => s.section === name);
const fieldOf = (view: ReturnType<SettingsPage["view"]>, name: string, key: string) =>
  sectionOf(view, name)?.fields.find((f) => f.key === key);

describe("the settings page's plugin sections", () => {
  test("every section a form can edit, built-in and external, but none that carries secrets or only tables", () => {
    const view = page.view(defaults, defaults, {});
    const names = view.plugins.map((s) => s.section);
    expect(names).toEqual(expect.arrayContaining(["tools.fetch", "tools.browser", "tools.sandbox", "plugins.weather"]));
    // builtinOnly sections (tokens, secrets) and one with nothing a form edits are left out.
    for (const hidden of ["channels.qq", "channels.a2a", "mcp", "tools.kite"]) expect(names).not.toContain(hidden);

    const fetch = sectionOf(view, "tools.fetch");
    expect(fetch).toMatchObject({ plugin: "fetch", reload: "live", builtin: true });
    // allow_hosts is on the page once already, under its own key.
    expect(fetch?.fields.map((f) => f.key)).not.toContain("allow_hosts");
    expect(fieldOf(view, "tools.fetch", "max_kb")).toEqual({
      key: "max_kb",
      doc: "A page's body is read up to this (KiB), the rest dropped.",
      kind: "number",
      integer: true,
      min: 1,
      max: 1_048_576,
      value: 4096,
      default: 4096,
      source: "default",
    });
    expect(fieldOf(view, "tools.fetch", "search_provider")).toMatchObject({
      kind: "choice",
      choices: ["", "searxng", "brave"],
    });
    expect(sectionOf(view, "plugins.weather")).toMatchObject({
      plugin: "weather",
      doc: "Where the weather plugin looks.",
      reload: "live",
      builtin: false,
    });
    // A doc's lines are one paragraph on the page.
    expect(fieldOf(view, "plugins.weather", "city")).toMatchObject({
      kind: "string",
      doc: "The city to report on.",
      value: "Oslo",
    });
  });

  test("settings.json over config.toml over the default, field by field; null gives a field back", () => {
    const patch = { sections: { "tools.fetch": { max_kb: 512 }, "plugins.weather": { units: "imperial" } } };
    const effective = page.apply(base, patch);
    expect(valueAt(effective, "tools.fetch.max_kb")).toBe(512);
    expect(valueAt(effective, "tools.fetch.timeout_ms")).toBe(5000);
    expect(valueAt(effective, "plugins.weather.units")).toBe("imperial");
    const view = page.view(base, effective, patch);
    expect(fieldOf(view, "tools.fetch", "max_kb")).toMatchObject({
      value: 512,
      default: 4096,
      source: "settings.json",
    });
    expect(fieldOf(view, "tools.fetch", "timeout_ms")).toMatchObject({ value: 5000, source: "config.toml" });
    expect(fieldOf(view, "tools.fetch", "allow_private")).toMatchObject({ value: false, source: "default" });

    // A change still waiting for a restart: the page shows the saved value and the one in force.
    const waiting = page.view(base, base, patch, effective);
    expect(fieldOf(waiting, "tools.fetch", "max_kb")).toMatchObject({ value: 512, running: 4096 });
    expect(fieldOf(waiting, "tools.fetch", "timeout_ms")).not.toHaveProperty("running");

    // settings.json over config.toml for a field config.toml sets too.
    const over = page.apply(base, { sections: { "tools.fetch": { timeout_ms: 7000 } } });
    expect(valueAt(over, "tools.fetch.timeout_ms")).toBe(7000);

    // A null removes the field from the stored patch (and an emptied section), nothing else.
    const merged = mergeSettingsPatch(
      { system_prompt: "p", ...patch },
      { sections: { "tools.fetch": { max_kb: null, timeout_ms: 9000 }, "plugins.weather": { units: null } } },
    );
    expect(merged).toEqual({ system_prompt: "p", sections: { "tools.fetch": { timeout_ms: 9000 } } });
    expect(mergeSettingsPatch(merged, { sections: { "tools.fetch": { timeout_ms: null } } })).toEqual({
      system_prompt: "p",
    });
    const back = page.apply(base, mergeSettingsPatch(patch, { sections: { "tools.fetch": { max_kb: null } } }));
    expect(valueAt(back, "tools.fetch.max_kb")).toBe(4096);
    expect(valueAt(back, "plugins.weather.units")).toBe("imperial");
  });

  test("a bad value is refused with config.toml's message", () => {
    const refused = (fields: Record<string, unknown>, section = "tools.fetch") => {
      try {
        page.apply(base, { sections: { [section]: fields } } as never);
        return "";
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refused({ max_kb: -1 })).toBe("tools.fetch.max_kb: must be at least 1");
    expect(refused({ max_kb: 2_000_000 })).toBe("tools.fetch.max_kb: must be at most 1048576");
    expect(refused({ max_kb: "big" })).toBe("tools.fetch.max_kb: must be a number");
    expect(refused({ max_kb: 1.5 })).toBe("tools.fetch.max_kb: must be an integer");
    expect(refused({ search_provider: "bing" })).toBe("tools.fetch.search_provider: must be searxng, brave or empty");
    expect(refused({ units: "kelvin" }, "plugins.weather")).toBe(
      "plugins.weather.units: must be one of metric, imperial",
    );
    expect(refused({ city: "" }, "plugins.weather")).toBe("plugins.weather.city: must be at least 1 characters");
    expect(refused({ max_kb: 64 })).toBe("");
  });

  test("an unknown section or field, or one the page leaves out, is refused by name; a stored one is passed over", () => {
    const refused = (sections: Record<string, Record<string, unknown>>) => {
      try {
        page.checkSections({ sections } as never);
        return "";
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refused({ "tools.nothing": { a: 1 } })).toBe("tools.nothing: no plugin has this section");
    expect(refused({ "channels.qq": { enabled: true } })).toBe(
      "channels.qq: this section is not edited on the settings page",
    );
    expect(refused({ "tools.fetch": { max_kbs: 1 } })).toBe("tools.fetch.max_kbs: unknown setting");
    expect(refused({ "tools.fetch": { allow_hosts: ["a.lan"] } })).toBe(
      "tools.fetch.allow_hosts: not edited in this part of the settings page",
    );
    expect(refused({ "tools.fetch": { max_kb: 1 }, "plugins.weather": { city: "Bergen" } })).toBe("");
    // settings.json written before a plugin went away still applies its other fields.
    const stale = page.apply(base, { sections: { "plugins.gone": { x: 1 }, "tools.fetch": { max_kb: 8, old: 1 } } });
    expect(valueAt(stale, "tools.fetch.max_kb")).toBe(8);
  });
});
