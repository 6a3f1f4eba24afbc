/** The build-time plugin order generator: a cycle or a missing facility fails the build, named. */
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
});
