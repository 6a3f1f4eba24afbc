/**
 * Every plugin's settings on the settings page, from outside: /api/settings lists each section a
 * form can edit with its fields' values, defaults and sources; a Save of a plugin field goes to
 * DATA/settings.json's "sections" and is applied at once as the section's reload kind says (a
 * live external plugin is sent config/changed); a bad value or an unknown field is refused with
 * a clear message and leaves settings.json as it was; null gives the field back to config.toml.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startDaemon, webUrlOf } from "../harness/daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";
import type { PluginSectionView, SettingsSaveResult, SettingsView } from "../../src/protocol/settings.ts";

const post = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-homed": "1" },
  body: JSON.stringify(body),
});

const fieldOf = (view: SettingsView, section: string, key: string) =>
  view.plugins.find((s) => s.section === section)?.fields.find((f) => f.key === key);

describe("plugins' settings in the web API", () => {
  test("fetch's max_kb: listed with its default, saved to settings.json, a bad value refused, null gives it back", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "config.toml"), "[tools.fetch]\ntimeout_ms = 5000\n");
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    const settingsFile = join(dir.path, "settings.json");
    const get = async () => (await (await fetch(`${url}api/settings`)).json()) as SettingsView;

    const before = await get();
    const fetchSection = before.plugins.find((s) => s.section === "tools.fetch") as PluginSectionView;
    expect(fetchSection).toMatchObject({ plugin: "fetch", reload: "live", builtin: true });
    expect(fieldOf(before, "tools.fetch", "max_kb")).toMatchObject({
      kind: "number",
      integer: true,
      min: 1,
      value: 4096,
      default: 4096,
      source: "default",
    });
    expect(fieldOf(before, "tools.fetch", "timeout_ms")).toMatchObject({ value: 5000, source: "config.toml" });
    // Sections carrying tokens or secrets are not on the page.
    expect(before.plugins.map((s) => s.section)).not.toContain("channels.qq");

    const res = await fetch(`${url}api/settings`, post({ sections: { "tools.fetch": { max_kb: 512 } } }));
    expect(res.status).toBe(200);
    const saved = (await res.json()) as SettingsSaveResult;
    expect(saved.reload).toEqual({ applied: ["tools.fetch.max_kb"], restartNeeded: [] });
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ sections: { "tools.fetch": { max_kb: 512 } } });
    const after = await get();
    expect(fieldOf(after, "tools.fetch", "max_kb")).toMatchObject({
      value: 512,
      default: 4096,
      source: "settings.json",
    });
    expect(fieldOf(after, "tools.fetch", "timeout_ms")).toMatchObject({ value: 5000, source: "config.toml" });

    // Refused with a message naming the field, and settings.json left as it was.
    const stored = readFileSync(settingsFile, "utf8");
    const refused = async (sections: unknown) => {
      const r = await fetch(`${url}api/settings`, post({ sections }));
      return [r.status, ((await r.json()) as { error: string }).error];
    };
    expect(await refused({ "tools.fetch": { max_kb: -1 } })).toEqual([400, "tools.fetch.max_kb: must be at least 1"]);
    expect(await refused({ "tools.fetch": { max_kb: "lots" } })).toEqual([400, "tools.fetch.max_kb: must be a number"]);
    expect(await refused({ "tools.fetch": { max_kbs: 1 } })).toEqual([400, "tools.fetch.max_kbs: unknown setting"]);
    expect(await refused({ "channels.qq": { enabled: true } })).toEqual([
      400,
      "channels.qq: this section is not edited on the settings page",
    ]);
    // What runs and how it is confined stay in config.toml: not listed, and refused by name.
    expect(await refused({ "tools.sandbox": { mode: "none" } })).toEqual([
      400,
      "tools.sandbox.mode: not edited in this part of the settings page",
    ]);
    expect(await refused({ "tools.browser": { executable: "/bin/sh" } })).toEqual([
      400,
      "tools.browser.executable: not edited in this part of the settings page",
    ]);
    expect(readFileSync(settingsFile, "utf8")).toBe(stored);
    const listed = await get();
    expect(fieldOf(listed, "tools.fetch", "max_kb")?.value).toBe(512);
    expect(fieldOf(listed, "tools.sandbox", "mode")).toBeUndefined();
    expect(fieldOf(listed, "tools.sandbox", "timeout_ms")).toBeDefined();
    expect(fieldOf(listed, "tools.browser", "executable")).toBeUndefined();
    expect(fieldOf(listed, "tools.music", "mpv")).toBeUndefined();

    // A section applied at homed's next start: saved and shown, with the value in force until then.
    const later = (await (
      await fetch(`${url}api/settings`, post({ sections: { "tools.rss": { max_feeds: 50 } } }))
    ).json()) as SettingsSaveResult;
    expect(later.reload).toEqual({ applied: [], restartNeeded: ["tools.rss.max_feeds"] });
    expect(fieldOf(later.settings, "tools.rss", "max_feeds")).toMatchObject({
      value: 50,
      running: 200,
      source: "settings.json",
    });
    await fetch(`${url}api/settings`, post({ sections: { "tools.rss": { max_feeds: null } } }));

    // null: back to config.toml's value (here the default), and out of settings.json.
    const back = (await (
      await fetch(`${url}api/settings`, post({ sections: { "tools.fetch": { max_kb: null } } }))
    ).json()) as SettingsSaveResult;
    expect(back.reload.applied).toEqual(["tools.fetch.max_kb"]);
    expect(fieldOf(back.settings, "tools.fetch", "max_kb")).toMatchObject({ value: 4096, source: "default" });
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({});
  }, 60_000);

  test("settings.json's fields for a plugin no longer there: ignored, named in the log and the view, removable with null", async () => {
    using dir = tempDir();
    const settingsFile = join(dir.path, "settings.json");
    writeFileSync(
      settingsFile,
      JSON.stringify({ sections: { "tools.fetch": { max_kb: 256 }, "tools.gone": { depth: 3, mode: "x" } } }),
    );
    await using d = await startDaemon(dir.path);
    expect(d.stderr()).toContain("settings.json holds settings no plugin has now");
    expect(d.stderr()).toContain("settings=tools.gone.depth,tools.gone.mode");
    const url = await webUrlOf(d);
    const view = (await (await fetch(`${url}api/settings`)).json()) as SettingsView;
    expect(view.unused).toEqual(["tools.gone.depth", "tools.gone.mode"]);
    // The rest of settings.json applies.
    expect(fieldOf(view, "tools.fetch", "max_kb")).toMatchObject({ value: 256, source: "settings.json" });

    // A value for the gone section is still refused; null for what it holds removes it.
    const bad = await fetch(`${url}api/settings`, post({ sections: { "tools.gone": { depth: 4 } } }));
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([
      400,
      "tools.gone: no plugin has this section",
    ]);
    const unknownNull = await fetch(`${url}api/settings`, post({ sections: { "tools.gone": { other: null } } }));
    expect(unknownNull.status).toBe(400);
    const res = await fetch(`${url}api/settings`, post({ sections: { "tools.gone": { depth: null, mode: null } } }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as SettingsSaveResult).settings.unused).toEqual([]);
    expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual({ sections: { "tools.fetch": { max_kb: 256 } } });
  }, 30_000);

  test("an external plugin's JSON-Schema section is on the page; a Save reaches the running plugin as config/changed", async () => {
    using dir = tempDir();
    const out = join(dir.path, "weather.jsonl");
    const plugin = installBunPlugin(dir.path, "weather", "settings-echo.ts", {}, ["plugins.weather", out]);
    const manifest = JSON.parse(readFileSync(join(plugin, "plugin.json"), "utf8"));
    writeFileSync(
      join(plugin, "plugin.json"),
      JSON.stringify({
        ...manifest,
        requires: [],
        settings: {
          description: "Where the weather plugin looks.",
          reload: "live",
          schema: {
            type: "object",
            properties: {
              units: {
                type: "string",
                description: "metric or imperial.",
                default: "metric",
                enum: ["metric", "imperial"],
              },
              refresh_minutes: { type: "integer", description: "Minutes.", default: 30, minimum: 1, maximum: 1440 },
            },
          },
        },
      }),
    );
    await using d = await startDaemon(dir.path);
    const url = await webUrlOf(d);
    await poll(
      async () => JSON.parse((await run([HOMED, "status", "-data", dir.path, "-json"])).stdout),
      (s: { plugins: { name: string; state: string }[] }) =>
        s.plugins.some((p) => p.name === "weather" && p.state === "ready"),
      { what: "weather ready", timeoutMs: 20_000 },
    );
    const view = (await (await fetch(`${url}api/settings`)).json()) as SettingsView;
    expect(view.plugins.find((s) => s.section === "plugins.weather")).toEqual({
      plugin: "weather",
      section: "plugins.weather",
      doc: "Where the weather plugin looks.",
      reload: "live",
      builtin: false,
      fields: [
        {
          key: "units",
          doc: "metric or imperial.",
          kind: "choice",
          choices: ["metric", "imperial"],
          value: "metric",
          default: "metric",
          source: "default",
        },
        {
          key: "refresh_minutes",
          doc: "Minutes.",
          kind: "number",
          integer: true,
          min: 1,
          max: 1440,
          value: 30,
          default: 30,
          source: "default",
        },
      ],
    });

    const bad = await fetch(`${url}api/settings`, post({ sections: { "plugins.weather": { units: "kelvin" } } }));
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([
      400,
      "plugins.weather.units: must be one of metric, imperial",
    ]);
    expect(existsSync(join(dir.path, "settings.json"))).toBe(false);

    const res = await fetch(`${url}api/settings`, post({ sections: { "plugins.weather": { units: "imperial" } } }));
    expect(((await res.json()) as SettingsSaveResult).reload).toEqual({
      applied: ["plugins.weather.units"],
      restartNeeded: [],
    });
    const lines = () =>
      readFileSync(out, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    const told = await poll(lines, (l) => l.length >= 2, { what: "config/changed", timeoutMs: 10_000 });
    expect(told[1]).toEqual({ value: { units: "imperial", refresh_minutes: 30 }, changed: ["plugins.weather.units"] });
  }, 60_000);
});
