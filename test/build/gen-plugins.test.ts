/**
 * The build-time plugin order generator: a cycle or a missing facility fails the build, named;
 * the plugins' settings modules become src/generated/builtin-settings.ts, and one without a
 * default or a doc string for a field fails the build.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, run, tempDir } from "../harness/binary.ts";

function plugin(dir: string, name: string, manifest: Record<string, unknown>): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "plugin.json"), JSON.stringify({ name, ...manifest }));
  writeFileSync(join(dir, name, "main.ts"), "export {};\n");
}

const gen = (dir: string, out: string) => run([BUN, join(ROOT, "scripts/gen-plugins.ts"), dir, out]);

describe("gen-plugins", () => {
  test("orders providers before their dependents", async () => {
    using d = tempDir();
    plugin(d.path, "zeta", { provides: ["tool.z"] });
    plugin(d.path, "alpha", { requires: ["tool.z", "kernel.store"], provides: ["channel.a"] });
    plugin(d.path, "mid", { requires: ["channel.a"] });
    const out = join(d.path, "out.ts");
    const r = await gen(d.path, out);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("zeta -> alpha -> mid");
    expect(readFileSync(out, "utf8")).toContain('"mid": () => import("../../plugins/mid/main.ts")');
  });

  test("a cycle fails the build and names it", async () => {
    using d = tempDir();
    plugin(d.path, "a", { provides: ["x.a"], requires: ["x.b"] });
    plugin(d.path, "b", { provides: ["x.b"], requires: ["x.a"] });
    const r = await gen(d.path, join(d.path, "out.ts"));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("dependency cycle: a -> b -> a");
  });

  test("a missing facility fails the build and names it", async () => {
    using d = tempDir();
    plugin(d.path, "a", { requires: ["tool.ghost"] });
    const r = await gen(d.path, join(d.path, "out.ts"));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("a requires tool.ghost, which nothing provides");
  });

  test("a bad manifest fails the build with the field and reason", async () => {
    using d = tempDir();
    plugin(d.path, "a", { transport: "carrier-pigeon" });
    const r = await gen(d.path, join(d.path, "out.ts"));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("transport");
  });

  /** A settings.ts in a plugin folder outside the repo: its imports name the repo's files. */
  function settings(dir: string, name: string, fields: string): void {
    writeFileSync(
      join(dir, name, "settings.ts"),
      `import * as v from "${join(ROOT, "node_modules/valibot")}";
import { defineSettings, setting } from "${join(ROOT, "src/protocol/plugin-settings.ts")}";
export const SETTINGS = defineSettings({ doc: "", reload: "live", schema: v.strictObject({ ${fields} }) });
`,
    );
  }

  test("a plugin's settings module is composed into builtin-settings.ts; a field without a doc or default fails", async () => {
    using d = tempDir();
    plugin(d.path, "kite", { settings: { section: "tools.kite", file: "settings.ts" } });
    settings(d.path, "kite", `length_m: setting(v.number(), 30, "Line length in metres.")`);
    const out = join(d.path, "out.ts");
    const r = await gen(d.path, out);
    expect(r.exitCode).toBe(0);
    const composed = readFileSync(join(d.path, "builtin-settings.ts"), "utf8");
    expect(composed).toContain('import { SETTINGS as s0 } from "../../plugins/kite/settings.ts";');
    expect(composed).toContain('{ plugin: "kite", section: "tools.kite", settings: s0 }');

    settings(d.path, "kite", `length_m: setting(v.number(), 30, "")`);
    let bad = await gen(d.path, out);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("length_m needs a doc string");
    settings(d.path, "kite", "length_m: v.number()");
    bad = await gen(d.path, out);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("length_m needs a default");

    plugin(d.path, "kite2", { settings: { section: "tools.kite", file: "settings.ts" } });
    settings(d.path, "kite", `length_m: setting(v.number(), 30, "Line length in metres.")`);
    settings(d.path, "kite2", `length_m: setting(v.number(), 30, "Line length in metres.")`);
    bad = await gen(d.path, out);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("section tools.kite is kite's already");
  });
});
