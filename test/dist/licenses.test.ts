/**
 * scripts/collect-licenses.ts: every component compiled in gets its licence texts, and a
 * runtime dependency without one stops the build, named (run against a small fake checkout
 * whose only dependency ships no LICENSE). Also: the repository's LICENSE is the GNU AGPL v3,
 * checked word for word against Debian's GPL-3 where the two licences share their text.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, run, tempDir } from "../harness/binary.ts";
import { runtimePackages } from "../../scripts/collect-licenses.ts";

const SCRIPT = join(ROOT, "scripts/collect-licenses.ts");

test("collects a text for each compiled-in component and lists them in INDEX.txt", async () => {
  using out = tempDir();
  const r = await run([BUN, SCRIPT, "x64", out.path]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  const index = readFileSync(join(out.path, "INDEX.txt"), "utf8");
  for (const line of [/^bun \S+ MIT/m, /^wordnet /m, /^cc-cedict .*CC-BY-SA-4\.0/m, /^jieba-dictionary /m]) {
    expect(index).toMatch(line);
  }
  const deps = Object.keys(
    (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
      .dependencies,
  );
  for (const dep of deps) {
    expect(index).toContain(`npm:${dep} `);
    expect(readdirSync(join(out.path, "npm", dep)).length).toBeGreaterThan(0);
  }
  expect(readFileSync(join(out.path, "npm/@img/sharp-libvips-linux-x64/LGPL-3.txt"), "utf8")).toContain(
    "GNU LESSER GENERAL PUBLIC LICENSE",
  );
});

test("a dependency without a licence text fails the collection, named", async () => {
  using fake = tempDir();
  writeFileSync(join(fake.path, "package.json"), JSON.stringify({ dependencies: { "no-licence-pkg": "1.0.0" } }));
  const pkg = join(fake.path, "node_modules/no-licence-pkg");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "no-licence-pkg", version: "1.0.0", license: "MIT" }),
  );
  writeFileSync(join(pkg, "index.js"), "module.exports = 1;\n");
  using out = tempDir();
  const r = await run([BUN, SCRIPT, "x64", out.path, "-root", fake.path]);
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain("no-licence-pkg@1.0.0: no LICENSE/COPYING/NOTICE file");
  expect(r.stdout).toBe("");
});

test("LICENSE is the GNU AGPL v3: sections 0-12 are GPL-3's words with Affero added", () => {
  const words = (s: string) => s.split(/\s+/).filter(Boolean);
  const agpl = readFileSync(join(ROOT, "LICENSE"), "utf8");
  expect(agpl).toStartWith("GNU AFFERO GENERAL PUBLIC LICENSE\nVersion 3, 19 November 2007\n");
  const section = (text: string, from: string, to: string) => {
    const w = words(text);
    const a = w.findIndex((x, i) => x === "0." && w[i + 1] === "Definitions.");
    const b = w.findIndex((x, i) => x === to && w[i + 1] === "Remote");
    return { w, a, b, from };
  };
  const ours = section(agpl, "0.", "13.");
  expect(ours.a).toBeGreaterThan(0);
  expect(ours.b).toBeGreaterThan(ours.a);
  const gpl = words(readFileSync("/usr/share/common-licenses/GPL-3", "utf8"));
  const ga = gpl.findIndex((x, i) => x === "0." && gpl[i + 1] === "Definitions.");
  const gb = gpl.findIndex((x, i) => x === "13." && gpl[i + 1] === "Use");
  const body = ours.w.slice(ours.a, ours.b).filter((x) => x !== "Affero");
  expect(body).toEqual(gpl.slice(ga, gb));
  expect(agpl).toContain("13. Remote Network Interaction; Use with the GNU General Public License.");
});

test("a dependency resolves as the bundler resolves it: the requiring package's nested copy first", () => {
  using fake = tempDir();
  writeFileSync(join(fake.path, "package.json"), JSON.stringify({ dependencies: { outer: "1.0.0" } }));
  const pkg = (dir: string, name: string, version: string, deps: Record<string, string> = {}) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version, license: "MIT", dependencies: deps }));
  };
  const nm = join(fake.path, "node_modules");
  pkg(join(nm, "outer"), "outer", "1.0.0", { inner: "2", shared: "1", other: "1" });
  pkg(join(nm, "inner"), "inner", "1.0.0"); // hoisted for someone else: not compiled in
  pkg(join(nm, "outer/node_modules/inner"), "inner", "2.0.0", { shared: "1" });
  pkg(join(nm, "shared"), "shared", "1.0.0");
  pkg(join(nm, "other"), "other", "1.0.0", { inner: "3" });
  pkg(join(nm, "other/node_modules/inner"), "inner", "3.0.0");
  expect(Object.fromEntries(runtimePackages(fake.path, "x64"))).toEqual({
    outer: join(nm, "outer"),
    inner: join(nm, "outer/node_modules/inner"),
    shared: join(nm, "shared"),
    other: join(nm, "other"),
    "inner@3.0.0": join(nm, "other/node_modules/inner"),
  });
});
