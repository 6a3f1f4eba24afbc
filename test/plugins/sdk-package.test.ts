/**
 * The plugin SDK as a package (scripts/build-sdk.ts → dist/sdk/package, built with dist/homed):
 * `npm pack` it, install the tarball into a project of its own with npm, offline (valibot and
 * @valibot/to-json-schema packed from this repository's node_modules), and a plugin written
 * against it — the one `homed plugin new` writes — type-checks, fails to type-check when wrong,
 * and passes its tests.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, ROOT, run, tempDir } from "../harness/binary.ts";
import { PLUGIN_PROTOCOL_VERSION } from "../../src/protocol/plugin.ts";

const PACKAGE = join(ROOT, "dist/sdk/package");
const NPM = Bun.which("npm");
const TSC = join(ROOT, "node_modules/.bin/tsc");

describe("@homed/plugin-sdk", () => {
  test("is versioned with the protocol and holds nothing from outside itself", () => {
    if (!existsSync(join(PACKAGE, "package.json")))
      throw new Error(`${PACKAGE} is missing: make build writes it (scripts/build-sdk.ts)`);
    const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
    expect(pkg.name).toBe("@homed/plugin-sdk");
    expect(Number(pkg.version.split(".")[0])).toBe(PLUGIN_PROTOCOL_VERSION);
    expect(pkg.homed.protocol).toBe(PLUGIN_PROTOCOL_VERSION);
    const bundle = readFileSync(join(PACKAGE, "index.js"), "utf8");
    const imports = [...bundle.matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]);
    // Bare imports only, and only of its dependencies and the runtime: no path into this repository.
    expect(
      imports.filter((s) => !/^(valibot|@valibot\/to-json-schema|bun:ffi|node:\w+|os|path|fs)$/.test(s ?? "")),
    ).toEqual([]);
    expect(imports).toContain("valibot");
  });

  test("npm pack, npm install --offline into a new project, and the template plugin type-checks and passes its tests", async () => {
    if (!NPM) throw new Error("npm is not on PATH: this test packs and installs the SDK with it");
    using dir = tempDir("homed-sdk-");
    const env = { npm_config_cache: join(dir.path, "npm-cache"), npm_config_update_notifier: "false" };
    const npm = async (args: string[], cwd: string) => {
      const r = await run([NPM, ...args], { cwd, env });
      if (r.exitCode !== 0) throw new Error(`npm ${args.join(" ")} failed:\n${r.stderr}`);
      return r;
    };
    await npm(
      [
        "pack",
        PACKAGE,
        join(ROOT, "node_modules/valibot"),
        join(ROOT, "node_modules/@valibot/to-json-schema"),
        "--pack-destination",
        dir.path,
      ],
      dir.path,
    );
    const listed = JSON.parse((await npm(["pack", PACKAGE, "--dry-run", "--json"], dir.path)).stdout) as {
      version: string;
      files: { path: string }[];
    }[];
    const version = listed[0]?.version ?? "";
    const files = (listed[0]?.files ?? []).map((f) => f.path);
    expect(files).toContain("index.js");
    expect(files).toContain("types/plugins/sdk/index.d.ts");
    expect(
      files.filter(
        (f) => !/^(index\.js|package\.json|README\.md|LICENSE|libhomed-shim-\w+\.so|types\/.+\.d\.ts)$/.test(f),
      ),
    ).toEqual([]);

    // The project: the template's code, with the SDK from the tarball instead of vendored.
    const project = join(dir.path, "project");
    const made = await run([HOMED, "plugin", "new", "demo", "-dir", join(dir.path, "template"), "-data", dir.path]);
    expect(made.exitCode).toBe(0);
    for (const f of ["main.ts", "tools.ts", "main.test.ts", "tsconfig.json"])
      cpSync(join(dir.path, "template", f), join(project, f));
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "demo", private: true, type: "module" }));
    const valibot = JSON.parse(readFileSync(join(ROOT, "node_modules/valibot/package.json"), "utf8")).version;
    const toJson = JSON.parse(readFileSync(join(ROOT, "node_modules/@valibot/to-json-schema/package.json"), "utf8"));
    await npm(
      [
        "install",
        "--offline",
        "--no-audit",
        "--no-fund",
        join(dir.path, `valibot-${valibot}.tgz`),
        join(dir.path, `valibot-to-json-schema-${toJson.version}.tgz`),
        join(dir.path, `homed-plugin-sdk-${version}.tgz`),
      ],
      project,
    );
    const installed = JSON.parse(readFileSync(join(project, "node_modules/@homed/plugin-sdk/package.json"), "utf8"));
    expect(installed.version).toBe(version);

    // Bun's types come from this repository (the project has no registry to fetch them from).
    const typecheck = () =>
      run([TSC, "-p", project, "--typeRoots", join(ROOT, "node_modules/@types")], { cwd: project });
    const ok = await typecheck();
    expect(ok.stdout).toBe("");
    expect(ok.exitCode).toBe(0);
    // The SDK's types are real: a wrong argument name does not compile.
    const tools = readFileSync(join(project, "main.ts"), "utf8");
    writeFileSync(join(project, "main.ts"), tools.replace("greet(args.name, answers)", "greet(args.nam, answers)"));
    const wrong = await typecheck();
    expect(wrong.exitCode).not.toBe(0);
    expect(wrong.stdout).toContain("Property 'nam' does not exist");
    writeFileSync(join(project, "main.ts"), tools);

    const tested = await run([process.execPath, "test"], { cwd: project });
    expect(tested.stderr).toContain("3 pass");
    expect(tested.exitCode).toBe(0);
  }, 120_000);
});
