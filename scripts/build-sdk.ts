/**
 * The plugin SDK as a package a person depends on from a repository of their own:
 * `bun scripts/build-sdk.ts` writes
 *
 * - dist/sdk/package/: what `npm pack` packs — plugins/sdk/package.json, index.js (plugins/sdk
 *   and the src/protocol, src/shared and src/ipc files it uses, bundled by Bun.build; valibot and
 *   @valibot/to-json-schema stay imports, as dependencies), the native shim for the shm
 *   transport (x64 Linux), and declarations under types/ (tsc, with the repository's layout kept
 *   so their relative imports stay inside the package), docs/plugins.md as README.md, LICENSE;
 * - dist/sdk/vendor.bin: the files `homed plugin new` writes into a new plugin's folder so it
 *   runs with no install and no network — that package as vendor/homed-plugin-sdk and valibot
 *   and @valibot/to-json-schema as node_modules/ (ESM build, declarations, licence) — as JSON
 *   lines of {path, b64}. The daemon embeds the file (src/cli/plugin-new.ts).
 *
 * The package's major version is the plugin protocol's (PLUGIN_PROTOCOL_VERSION): a plugin
 * built on @homed/plugin-sdk 1.x speaks protocol 1. The build fails when they disagree.
 *
 * `bun scripts/build-sdk.ts --vendor-arch arm64` writes dist/sdk/vendor-arm64.bin instead: the
 * same files with the arm64 build of the shim, for the arm64 daemon (scripts/build.ts embeds it).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { PLUGIN_PROTOCOL_VERSION } from "../src/protocol/plugin.ts";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "dist/sdk");
const PKG = join(OUT, "package");

function fail(msg: string): never {
  console.error(`build-sdk: ${msg}`);
  process.exit(1);
}

if (process.argv[2] === "--vendor-arch") {
  const arch = process.argv[3] ?? "";
  const shimFile = join(ROOT, "dist/native", `libhomed-shim-${arch}.so`);
  if (!/^[a-z0-9]+$/.test(arch) || !existsSync(shimFile)) fail(`no shim for ${arch || "(none)"}: ${shimFile}`);
  const shimB64 = readFileSync(shimFile).toString("base64");
  const lines = readFileSync(join(OUT, "vendor.bin"), "utf8").split("\n").filter(Boolean);
  let swapped = 0;
  const out = lines.map((line) => {
    const f = JSON.parse(line) as { path: string; b64: string };
    if (!/^vendor\/homed-plugin-sdk\/libhomed-shim-[^/]+\.so$/.test(f.path)) return line;
    swapped++;
    return JSON.stringify({ path: f.path, b64: shimB64 });
  });
  if (swapped !== 1) fail(`vendor.bin holds ${swapped} shims, not 1`);
  writeFileSync(join(OUT, `vendor-${arch}.bin`), `${out.join("\n")}\n`);
  console.log(`build-sdk: dist/sdk/vendor-${arch}.bin (the ${arch} shim)`);
  process.exit(0);
}

const started = performance.now();
const manifest = JSON.parse(readFileSync(join(ROOT, "plugins/sdk/package.json"), "utf8")) as {
  version: string;
  homed: { protocol: number };
};
const major = Number(manifest.version.split(".")[0]);
if (major !== PLUGIN_PROTOCOL_VERSION || manifest.homed.protocol !== PLUGIN_PROTOCOL_VERSION)
  fail(
    `plugins/sdk/package.json is version ${manifest.version} (homed.protocol ${manifest.homed.protocol}) but the protocol is ${PLUGIN_PROTOCOL_VERSION}: the major version and homed.protocol follow it`,
  );

rmSync(PKG, { recursive: true, force: true });
mkdirSync(PKG, { recursive: true });

const built = await Bun.build({
  entrypoints: [join(ROOT, "plugins/sdk/index.ts")],
  outdir: PKG,
  target: "bun",
  format: "esm",
  external: ["valibot", "@valibot/to-json-schema"],
});
if (!built.success) fail(built.logs.map(String).join("\n"));

// Declarations: tsc over the SDK's entry, into types/ with the repository's folders.
const tsconfig = join(OUT, "tsconfig.sdk.json");
writeFileSync(
  tsconfig,
  JSON.stringify({
    compilerOptions: {
      target: "ESNext",
      module: "Preserve",
      moduleResolution: "bundler",
      lib: ["ESNext"],
      types: ["bun"],
      typeRoots: [join(ROOT, "node_modules/@types")],
      strict: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      verbatimModuleSyntax: true,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: ROOT,
      outDir: join(PKG, "types"),
    },
    files: [join(ROOT, "plugins/sdk/index.ts"), join(ROOT, "src/types/assets.d.ts")],
  }),
);
const tsc = Bun.spawnSync([join(ROOT, "node_modules/.bin/tsc"), "-p", tsconfig], { stdout: "pipe", stderr: "pipe" });
if (tsc.exitCode !== 0) fail(`tsc: ${tsc.stdout.toString()}${tsc.stderr.toString()}`);
rmSync(tsconfig);

/** Every file under `dir`, as paths relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path).map((p) => join(name, p)) : [name];
  });
}

// Our sources import each other as "./x.ts"; a declaration file's "./x.js" resolves to x.d.ts in
// every TypeScript resolution mode, ".ts" only where the reader allows importing .ts files.
for (const rel of walk(join(PKG, "types"))) {
  const path = join(PKG, "types", rel);
  const text = readFileSync(path, "utf8");
  writeFileSync(path, text.replace(/(["'])(\.{1,2}\/[^"']+)\.ts\1/g, "$1$2.js$1"));
}
for (const rel of walk(join(PKG, "types")))
  if (/from "(?!\.|valibot|@valibot\/|bun)/.test(readFileSync(join(PKG, "types", rel), "utf8")))
    fail(`types/${rel} imports a package the SDK does not depend on`);

const pkgJson = JSON.parse(readFileSync(join(ROOT, "plugins/sdk/package.json"), "utf8"));
writeFileSync(join(PKG, "package.json"), `${JSON.stringify(pkgJson, null, 2)}\n`);
cpSync(join(ROOT, "docs/plugins.md"), join(PKG, "README.md"));
cpSync(join(ROOT, "LICENSE"), join(PKG, "LICENSE"));

// Nothing in the bundle may reach outside the package but its two dependencies.
const bundle = readFileSync(join(PKG, "index.js"), "utf8");
for (const m of bundle.matchAll(/\bfrom\s*"([^"]+)"/g)) {
  const spec = m[1] ?? "";
  if (!/^(valibot|@valibot\/to-json-schema|bun:ffi|bun|(node:)?[a-z_/]+)$/.test(spec))
    fail(`index.js imports ${spec}: the package would reach outside itself`);
}

// The vendored copy for `homed plugin new`: the package, and its dependencies as installed here.
const vendor: { path: string; b64: string }[] = [];
const add = (to: string, file: string) => vendor.push({ path: to, b64: readFileSync(file).toString("base64") });
for (const rel of walk(PKG)) add(join("vendor/homed-plugin-sdk", rel), join(PKG, rel));
for (const dep of ["valibot", "@valibot/to-json-schema"]) {
  const dir = join(ROOT, "node_modules", dep);
  for (const rel of ["package.json", "LICENSE.md", "README.md", "dist/index.mjs", "dist/index.d.mts"]) {
    if (!existsSync(join(dir, rel))) fail(`node_modules/${dep}/${rel} is missing: run npm ci`);
    add(join("node_modules", dep, rel), join(dir, rel));
  }
}
writeFileSync(join(OUT, "vendor.bin"), `${vendor.map((f) => JSON.stringify(f)).join("\n")}\n`);

const files = walk(PKG).length;
console.log(
  `build-sdk: ${pkgJson.name}@${pkgJson.version} (${files} files) and ${vendor.length} vendored files in ${Math.round(performance.now() - started)} ms → ${relative(ROOT, OUT)}`,
);
