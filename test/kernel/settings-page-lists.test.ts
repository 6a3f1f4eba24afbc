/**
 * The settings page's plugin fields under a page key, from the plugins' declarations: a control
 * several plugins share (written to each) and a list of [[tables]] edited item by item — an item
 * added or removed by name, a bad one refused with its section's own message, a field kept to
 * config.toml (a credential by value) neither shown nor accepted — and a settings.json written
 * before "page" existed, still read. SettingsPage, the merge and the file reader are called
 * directly; the daemon's route is test/web/settings.test.ts.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configSchema, type Config } from "../../src/kernel/config/config.ts";
import { settingsSections, valueAt } from "../../src/kernel/config/sections.ts";
import {
  mergeSettingsPatch,
  readSettingsPatch,
  SettingsPage,
  writeSettingsPatch,
} from "../../src/kernel/config/ui-settings.ts";
import type { SettingsPatch } from "../../src/protocol/settings.ts";
import { tempDir } from "../harness/binary.ts";

const sections = settingsSections();
const page = new SettingsPage(sections);
const schema = configSchema(sections);
/** config.toml's configuration: one stdio server with a credential in its env and a header by value. */
const base = v.parse(schema, {
  mcp: {
    servers: [
      {
        name: "files",
        command: "npx",
        args: ["-y", "server-files"],
        env: { API_KEY: "sk-in-config" },
        headers: {},
      },
      { name: "remote", url: "http://127.0.0.1:9/mcp", headers: { "X-Token": "by-value" } },
    ],
  },
}) as Config;

/** A request as the kernel handles it: resolved, checked, merged over `stored`, applied. */
function save(request: SettingsPatch, stored: SettingsPatch = {}, inForce: Config = base) {
  const patch = page.resolveListEdits(request, inForce);
  page.checkSections(patch, stored);
  const next = mergeSettingsPatch(stored, patch);
  return { next, config: page.apply(base, next) };
}
const refusal = (fn: () => unknown) => {
  try {
    fn();
    return "";
  } catch (err) {
    return (err as Error).message;
  }
};
const names = (config: Config) => (valueAt(config, "mcp.servers") as { name: string }[]).map((s) => s.name);

describe("a list on the settings page, item by item", () => {
  test("the view describes the item's fields a form edits and shows no value kept to config.toml", () => {
    const view = page.view(base, base, {});
    const list = view.lists.find((l) => l.path === "mcp.servers");
    expect(list).toMatchObject({ key: "mcp_servers", label: "MCP servers", source: "config.toml" });
    expect(list?.fields.map((f) => [f.key, f.kind])).toEqual([
      ["name", "string"],
      ["command", "string"],
      ["args", "list"],
      ["url", "string"],
      ["header_secrets", "record"],
      ["risk", "choice"],
      ["read_only_hint", "boolean"],
    ]);
    expect(list?.fields[0]).toMatchObject({ required: true });
    expect(list?.fields.find((f) => f.key === "risk")).toMatchObject({ required: false, default: "exec" });
    expect(list?.items.map((i) => i.name)).toEqual(["files", "remote"]);
    expect(list?.items[0]).toMatchObject({ command: "npx", args: ["-y", "server-files"] });
    // Values by value (env, headers) never leave the kernel.
    expect(JSON.stringify(view)).not.toContain("sk-in-config");
    expect(JSON.stringify(view)).not.toContain("by-value");
    // The section itself (builtinOnly) has no form block.
    expect(view.plugins.map((s) => s.section)).not.toContain("mcp");
  });

  test("an item added is saved with the whole list and applied; one removed is gone; the list then wins over config.toml", () => {
    const added = save({
      list_edits: [
        {
          key: "mcp_servers",
          add: { name: "github", url: "https://example.com/mcp", header_secrets: { Authorization: "github" } },
        },
      ],
    });
    expect(names(added.config)).toEqual(["files", "remote", "github"]);
    expect(added.next.list_edits).toBeUndefined();
    expect(((added.next.page?.mcp_servers ?? []) as { name: string }[]).map((s) => s.name)).toEqual([
      "files",
      "remote",
      "github",
    ]);
    const github = (valueAt(added.config, "mcp.servers") as Record<string, unknown>[])[2];
    expect(github).toMatchObject({ header_secrets: { Authorization: "github" }, risk: "exec", command: "" });
    expect(page.view(base, added.config, added.next).lists[0]?.source).toBe("settings.json");

    const removed = save({ list_edits: [{ key: "mcp_servers", remove: "files" }] }, added.next, added.config);
    expect(names(removed.config)).toEqual(["remote", "github"]);
    // config.toml's list no longer applies: settings.json holds the list, whatever config.toml says.
    const other = v.parse(schema, { mcp: { servers: [{ name: "new-in-toml", command: "x" }] } }) as Config;
    expect(names(page.apply(other, removed.next))).toEqual(["remote", "github"]);
    // null gives the list back to config.toml.
    const back = mergeSettingsPatch(removed.next, { page: { mcp_servers: null } });
    expect(back.page).toBeUndefined();
    expect(names(page.apply(base, back))).toEqual(["files", "remote"]);

    expect(refusal(() => save({ list_edits: [{ key: "mcp_servers", remove: "nope" }] }))).toBe(
      "MCP servers: none is named nope",
    );
    expect(refusal(() => save({ list_edits: [{ key: "mcp_servers", add: { name: "files", command: "y" } }] }))).toBe(
      "MCP servers: one is named files already",
    );
  });

  test("a bad item is refused with the section's own message, and nothing is written", () => {
    using dir = tempDir();
    writeSettingsPatch(dir.path, { system_prompt: "kept" });
    const request = (add: Record<string, unknown>) => () => {
      const stored = readSettingsPatch(dir.path);
      const { next } = save({ list_edits: [{ key: "mcp_servers", add: add as never }] }, stored);
      writeSettingsPatch(dir.path, next);
    };
    expect(refusal(request({ name: "bad name!", command: "true" }))).toBe(
      "mcp.servers.2.name: must be 1-32 letters, digits or dashes",
    );
    expect(refusal(request({ name: "both", command: "true", url: "https://example.com/mcp" }))).toBe(
      "mcp.servers.2: a server needs either command (stdio) or url (Streamable HTTP), not both",
    );
    expect(refusal(request({ name: "key", url: "https://x/mcp", header_secrets: { Authorization: "a b" } }))).toContain(
      "must be secret names",
    );
    // A field kept to config.toml (a value that may be a credential) is not accepted from the page.
    expect(refusal(request({ name: "leak", url: "https://x/mcp", headers: { Authorization: "Bearer x" } }))).toBe(
      "mcp.servers.headers: not edited on the settings page",
    );
    expect(refusal(request({ name: "leak", command: "x", env: { K: "v" } }))).toBe(
      "mcp.servers.env: not edited on the settings page",
    );
    // A request may not set the list whole (it could carry those fields).
    expect(refusal(() => save({ page: { mcp_servers: [{ name: "whole", command: "x" }] } }))).toBe(
      "mcp_servers: a list is changed one item at a time (list_edits)",
    );
    expect(refusal(() => save({ list_edits: [{ key: "nothing", remove: "x" }] }))).toBe(
      "nothing: no list on the settings page has this key",
    );
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({ system_prompt: "kept" });
  });
});

describe("a control several plugins share", () => {
  test("one value written to every plugin field with the key; an unknown key refused", () => {
    const { next, config } = save({ page: { allow_hosts: ["nas.lan", "*.lan"] } });
    expect(next).toEqual({ page: { allow_hosts: ["nas.lan", "*.lan"] } });
    expect(valueAt(config, "tools.fetch.allow_hosts")).toEqual(["nas.lan", "*.lan"]);
    expect(valueAt(config, "tools.browser.allow_hosts")).toEqual(["nas.lan", "*.lan"]);
    const field = page.view(base, config, next).page.find((f) => f.key === "allow_hosts");
    expect(field).toMatchObject({
      heading: "Private addresses",
      kind: "list",
      value: ["nas.lan", "*.lan"],
      source: "settings.json",
      paths: expect.arrayContaining(["tools.fetch.allow_hosts", "tools.browser.allow_hosts"]),
    });
    expect(field?.label).toStartWith("Hosts on your network that fetch_url and the browser may open");
    const bad = refusal(() => save({ page: { allow_hosts: ["not a host"] } }));
    expect(bad).toContain("tools.fetch.allow_hosts.0: must be host names, addresses or CIDR ranges");
    expect(bad).toContain("tools.browser.allow_hosts.0: must be host names, addresses or CIDR ranges");
    expect(refusal(() => save({ page: { fly_hosts: ["a"] } }))).toBe(
      "fly_hosts: nothing on the settings page has this key",
    );
  });
});

describe("settings.json written before the page carried plugin fields generically", () => {
  test("its top-level plugin fields are read as page keys, applied, and written back under page", () => {
    using dir = tempDir();
    writeFileSync(
      join(dir.path, "settings.json"),
      JSON.stringify({
        system_prompt: "old",
        allow_hosts: ["nas.lan"],
        mcp_servers: [{ name: "old-one", command: "npx", args: ["-y", "x"] }],
      }),
    );
    const stored = readSettingsPatch(dir.path);
    expect(stored).toEqual({
      system_prompt: "old",
      page: { allow_hosts: ["nas.lan"], mcp_servers: [{ name: "old-one", command: "npx", args: ["-y", "x"] }] },
    });
    const config = page.apply(base, stored);
    expect(names(config)).toEqual(["old-one"]);
    expect(valueAt(config, "tools.browser.allow_hosts")).toEqual(["nas.lan"]);
    const { next } = save({ recall_untrusted: true }, stored, config);
    writeSettingsPatch(dir.path, next);
    expect(JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8"))).toEqual({
      system_prompt: "old",
      recall_untrusted: true,
      page: { allow_hosts: ["nas.lan"], mcp_servers: [{ name: "old-one", command: "npx", args: ["-y", "x"] }] },
    });
    // A key no plugin shows now is kept, ignored, and offered for removal.
    writeFileSync(join(dir.path, "settings.json"), JSON.stringify({ kite_lines: ["a"] }));
    const stale = readSettingsPatch(dir.path);
    expect(page.unused(stale)).toEqual(["kite_lines"]);
    expect(mergeSettingsPatch(stale, { page: { kite_lines: null } })).toEqual({});
    expect(refusal(() => page.checkSections({ page: { kite_lines: null } }, stale))).toBe("");
  });
});
