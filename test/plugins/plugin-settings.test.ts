/**
 * Plugins own their settings: a plugin declares its section once (a built-in one in its
 * settings.ts, an external one as a JSON Schema in plugin.json) and the kernel's config code,
 * which names no plugin, makes of it config.toml's schema, initconfig's template, what
 * config/get answers and the config/changed a reload sends.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { spawnDaemon, startDaemon, webUrlOf } from "../harness/daemon.ts";
import { installBunPlugin, installPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";
import { configSchema, configTemplate, loadConfig } from "../../src/kernel/config/config.ts";
import { pluginSectionFor, type SettingsSection, settingsSections, valueAt } from "../../src/kernel/config/sections.ts";
import { defineSettings, onSettingsPage, setting } from "../../src/protocol/plugin-settings.ts";
import { SettingsPage } from "../../src/kernel/config/ui-settings.ts";

/** A JSON-Schema section as an external plugin's plugin.json gives it. */
const WEATHER_SETTINGS = {
  description: "Where the weather plugin looks.",
  reload: "live",
  schema: {
    type: "object",
    properties: {
      city: { type: "string", description: "The city to report on.", default: "Oslo", minLength: 1 },
      units: { type: "string", description: "metric or imperial.", default: "metric", enum: ["metric", "imperial"] },
      refresh_minutes: {
        type: "integer",
        description: "Minutes between reports.",
        default: 30,
        minimum: 1,
        maximum: 1440,
      },
    },
  },
};

function installWeather(data: string, out: string): void {
  const dir = installBunPlugin(data, "weather", "settings-echo.ts", {}, ["plugins.weather", out]);
  const manifest = JSON.parse(readFileSync(join(dir, "plugin.json"), "utf8"));
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ ...manifest, requires: [], settings: WEATHER_SETTINGS }));
}

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

describe("an external plugin's JSON-Schema section", () => {
  test("is in initconfig's template, parsed with its defaults, read by its plugin and sent to it on a reload", async () => {
    using dir = tempDir();
    const out = join(dir.path, "weather.jsonl");
    installWeather(dir.path, out);

    // initconfig writes the section from the schema's descriptions and defaults.
    expect((await run([HOMED, "initconfig", "-data", dir.path])).exitCode).toBe(0);
    const template = readFileSync(join(dir.path, "config.toml"), "utf8");
    expect(template).toContain(
      '[plugins.weather]\n# Where the weather plugin looks.\n# The city to report on.\ncity = "Oslo"\n# metric or imperial.\nunits = "metric"\n',
    );

    writeFileSync(join(dir.path, "config.toml"), '[plugins.weather]\ncity = "Bergen"\n');
    await using d = await startDaemon(dir.path);
    const [start] = await poll(
      () => lines(out),
      (l) => l.length >= 1,
      { what: "the plugin's first config/get", timeoutMs: 20_000 },
    );
    expect(start).toEqual({ start: { city: "Bergen", units: "metric", refresh_minutes: 30 } });
    await poll(
      async () => JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout),
      (s: { plugins: { name: string; state: string }[] }) =>
        s.plugins.some((p) => p.name === "weather" && p.state === "ready"),
      { what: "weather ready", timeoutMs: 20_000 },
    );

    // A change is applied live (the section says so) and the plugin is told what changed.
    writeFileSync(join(dir.path, "config.toml"), '[plugins.weather]\ncity = "Bergen"\nunits = "imperial"\n');
    d.proc.kill("SIGHUP");
    await d.waitFor(/msg="configuration reloaded".*applied=plugins\.weather\.units restart_needed=nothing/);
    const told = await poll(
      () => lines(out),
      (l) => l.length >= 2,
      { what: "config/changed", timeoutMs: 10_000 },
    );
    expect(told[1]).toEqual({
      value: { city: "Bergen", units: "imperial", refresh_minutes: 30 },
      changed: ["plugins.weather.units"],
    });

    // A bad value is refused by name, and the daemon keeps what it had (nothing sent).
    writeFileSync(join(dir.path, "config.toml"), "[plugins.weather]\nrefresh_minutes = 0\n");
    d.proc.kill("SIGHUP");
    await d.waitFor(/msg="configuration not reloaded".*plugins\.weather\.refresh_minutes: must be at least 1/);
    expect(lines(out)).toHaveLength(2);
  }, 60_000);

  test("a plugin installed while homed runs: its section is accepted on a reload and waits for the next start", async () => {
    using dir = tempDir();
    await using d = await startDaemon(dir.path);
    await webUrlOf(d); // the web plugin is up: homed has long been listening for SIGHUP
    installWeather(dir.path, join(dir.path, "weather.jsonl"));
    writeFileSync(join(dir.path, "config.toml"), '[plugins.weather]\ncity = "Bergen"\n');
    d.proc.kill("SIGHUP");
    await d.waitFor(/msg="configuration reloaded".*applied=nothing restart_needed=plugins\.weather\n/);
    expect(d.stderr()).not.toContain("configuration not reloaded");
  }, 30_000);

  test("a bad value stops a fresh start with 78, naming the file, the section and the field", async () => {
    using dir = tempDir();
    installWeather(dir.path, join(dir.path, "weather.jsonl"));
    writeFileSync(join(dir.path, "config.toml"), '[plugins.weather]\nunits = "kelvin"\n');
    const d = spawnDaemon(dir.path);
    expect(await d.proc.exited).toBe(78);
    expect(d.stderr()).toContain(
      `${join(dir.path, "config.toml")}: plugins.weather.units: must be one of metric, imperial`,
    );
    writeFileSync(join(dir.path, "config.toml"), "[plugins.weather]\nwind = true\n");
    const e = spawnDaemon(dir.path);
    expect(await e.proc.exited).toBe(78);
    expect(e.stderr()).toContain("plugins.weather.wind: unknown setting");
  }, 30_000);

  test("a schema without defaults or descriptions blocks the plugin with the reason; the daemon runs", async () => {
    using dir = tempDir();
    const broken = (name: string, property: Record<string, unknown>) =>
      installPlugin(dir.path, name, {
        exec: "/bin/true",
        ...({ settings: { schema: { type: "object", properties: { level: property } } } } as object),
      });
    broken("nodefault", { type: "integer", description: "How loud." });
    broken("badfault", { type: "integer", description: "How loud.", default: 500, maximum: 10 });
    await using _d = await startDaemon(dir.path);
    const status = JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout) as {
      plugins: { name: string; state: string; detail: string }[];
    };
    const of = (name: string) => status.plugins.find((p) => p.name === name);
    expect(of("nodefault")?.state).toBe("blocked");
    expect(of("nodefault")?.detail).toContain("needs a default");
    expect(of("badfault")?.state).toBe("blocked");
    expect(of("badfault")?.detail).toContain("level: its default 500 must be at most 10");
  }, 30_000);
});

describe("a built-in plugin's settings.ts", () => {
  // A throwaway plugin's settings, declared as plugins/<name>/settings.ts declares them.
  const KITE = defineSettings({
    doc: "The kite plugin's string.",
    schema: v.strictObject({
      length_m: setting(v.pipe(v.number("must be a number"), v.minValue(1)), 30, "Line length in metres."),
      colour_secret: setting(v.string(), "", "The name of the colour in DATA/secrets.json's values."),
      // On the settings page with fetch's and the browser's private hosts: one list for all three.
      fly_hosts: setting(onSettingsPage(v.array(v.string()), "allow_hosts"), [], "Hosts the kite may fly over."),
    }),
    reload: "live",
  });
  const sections: SettingsSection[] = [
    ...settingsSections(),
    { plugin: "kite", section: "tools.kite", settings: KITE, builtin: true },
  ];

  test("one new field shows in the template, the parsed config and config/get, with no kernel edit", () => {
    using dir = tempDir();
    const template = configTemplate(sections);
    expect(template).toContain("[tools.kite]\n# The kite plugin's string.\n# Line length in metres.\nlength_m = 30\n");
    // The template still means exactly the defaults, the new section included.
    expect(v.parse(configSchema(sections), Bun.TOML.parse(template))).toEqual(v.parse(configSchema(sections), {}));

    const file = join(dir.path, "config.toml");
    writeFileSync(file, '[tools.kite]\nlength_m = 45\ncolour_secret = "kite-colour"\n');
    const config = loadConfig({ file, env: { HOMED_TOOLS_KITE_LENGTH_M: "50" }, sections });
    expect(valueAt(config, "tools.kite")).toEqual({ length_m: 50, colour_secret: "kite-colour", fly_hosts: [] });
    writeFileSync(file, "[tools.kite]\nlength_m = 0\n");
    expect(() => loadConfig({ file, env: {}, sections })).toThrow(`${file}: tools.kite.length_m`);

    // config/get: the owner (built-in) gets its secret resolved; another plugin reads the name only.
    writeFileSync(file, '[tools.kite]\ncolour_secret = "kite-colour"\n');
    const loaded = loadConfig({ file, env: {}, sections });
    const deps = {
      sections,
      isBuiltin: () => true,
      secretValues: () => ({ "kite-colour": "red" }),
      passThrough: () => ({}),
      loginToken: () => "",
    };
    expect(pluginSectionFor("kite", "tools.kite", loaded, deps)).toEqual({
      length_m: 30,
      colour_secret: "kite-colour",
      fly_hosts: [],
      colour: "red",
    });
    expect(pluginSectionFor("files", "tools", loaded, deps)).toMatchObject({
      kite: { length_m: 30, colour_secret: "kite-colour" },
    });
    expect((pluginSectionFor("files", "tools", loaded, deps) as { kite: object }).kite).not.toHaveProperty("colour");
    // An external plugin's section: its own plugin reads it whole (never a secret's value); nobody
    // else, and not through [plugins].
    const ext: SettingsSection = { ...sections.at(-1)!, plugin: "weather", section: "plugins.weather", builtin: false };
    const withExt = [...sections, ext];
    const cfg = v.parse(configSchema(withExt), { plugins: { weather: { colour_secret: "kite-colour" } } }) as never;
    const extDeps = { ...deps, sections: withExt, isBuiltin: (n: string) => n !== "weather" && n !== "other" };
    expect(pluginSectionFor("weather", "plugins.weather", cfg, extDeps)).toEqual({
      length_m: 30,
      colour_secret: "kite-colour",
      fly_hosts: [],
    });
    expect(() => pluginSectionFor("other", "plugins.weather", cfg, extDeps)).toThrow("plugin weather's own");
    expect(() => pluginSectionFor("weather", "plugins", cfg, extDeps)).toThrow("plugin weather's own");
    // A built-in-only section stays built-in only.
    expect(() => pluginSectionFor("weather", "channels", cfg, extDeps)).toThrow("reserved to built-in plugins");
    expect(() => pluginSectionFor("weather", "mcp", cfg, extDeps)).toThrow("reserved to built-in plugins");
  });

  test("the settings page finds the field by its page key: shown, saved and sourced with the built-in ones", () => {
    const page = new SettingsPage(sections);
    expect(page.shared.get("allow_hosts")?.paths).toEqual(
      expect.arrayContaining(["tools.fetch.allow_hosts", "tools.browser.allow_hosts", "tools.kite.fly_hosts"]),
    );
    // The label and heading are the ones a plugin's settings give the control (fetch's).
    expect(page.shared.get("allow_hosts")?.label).toContain("fetch_url and the browser");
    expect(page.shared.get("allow_hosts")?.heading).toBe("Private addresses");
    const base = v.parse(configSchema(sections), {}) as never;
    const saved = page.apply(base, { page: { allow_hosts: ["nas.lan"] } });
    expect(valueAt(saved, "tools.kite.fly_hosts")).toEqual(["nas.lan"]);
    expect(valueAt(saved, "tools.fetch.allow_hosts")).toEqual(["nas.lan"]);
    expect(valueAt(saved, "tools.browser.allow_hosts")).toEqual(["nas.lan"]);
    const view = page.view(base, saved, { page: { allow_hosts: ["nas.lan"] } });
    expect(view.page.find((f) => f.key === "allow_hosts")).toMatchObject({
      kind: "list",
      value: ["nas.lan"],
      source: "settings.json",
    });
  });

  test("every built-in plugin's manifest that names settings points at a module the build composed", () => {
    const named = readdirSync(join(ROOT, "plugins"))
      .filter((p) => existsSync(join(ROOT, "plugins", p, "plugin.json")))
      .map((p) => JSON.parse(readFileSync(join(ROOT, "plugins", p, "plugin.json"), "utf8")))
      .filter((m) => m.settings)
      .map((m) => [m.name, m.settings.section]);
    expect(settingsSections().map((s) => [s.plugin, s.section])).toEqual(
      expect.arrayContaining(named as [string, string][]),
    );
    expect(settingsSections()).toHaveLength(named.length);
  });
});

describe("the kernel's config code names no plugin", () => {
  test("no plugin's name is a string literal in src/kernel/config/", () => {
    const names = readdirSync(join(ROOT, "plugins")).filter((p) => existsSync(join(ROOT, "plugins", p, "plugin.json")));
    expect(names).toEqual(expect.arrayContaining(["qq", "mcp", "browser", "fetch", "a2a"]));
    const kernel = join(ROOT, "src/kernel/config");
    const files = readdirSync(kernel).filter((f) => f.endsWith(".ts"));
    expect(files).toEqual(expect.arrayContaining(["config.ts", "reload.ts", "template.ts", "ui-settings.ts"]));
    const found: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(kernel, f), "utf8");
      for (const name of names)
        for (const quote of ['"', "'", "`"]) if (text.includes(`${quote}${name}${quote}`)) found.push(`${f}: ${name}`);
    }
    expect(found).toEqual([]);
  });
});
