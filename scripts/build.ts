/**
 * Compile one of homed's executables: `bun scripts/build.ts homed|waiter x64|arm64`.
 *
 * x64 is the host: Bun compiles with its own runtime. arm64 is a cross build, offline: the
 * aarch64 Bun runtime comes from the npm package @oven/bun-linux-aarch64 at the same version
 * as our pinned bun (its platform check refuses a normal install on x64, so we `npm pack` and
 * unpack it), and the native shim import is redirected to the arm64 build of native/shim.c.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BunPlugin } from "bun";

const ROOT = resolve(import.meta.dir, "..");
const DIST = join(ROOT, "dist");

const entries = {
  homed: { src: "src/main.ts", out: { x64: "homed", arm64: "homed-linux-arm64" } },
  waiter: { src: "src/waiter.ts", out: { x64: "waiter", arm64: "waiter-linux-arm64" } },
} as const;

type Entry = keyof typeof entries;
type Arch = "x64" | "arm64";

function fail(msg: string): never {
  console.error(`build: ${msg}`);
  process.exit(1);
}

/**
 * An npm package for another platform (its platform check refuses a normal install here),
 * fetched with `npm pack` once and unpacked under dist/cache. Returns the package's folder.
 */
function packedPackage(name: string, version: string): string {
  const dir = join(DIST, "cache", `${name.replace(/[@/]/g, "_")}-${version}`);
  const pkg = join(dir, "package");
  if (existsSync(join(pkg, "package.json"))) return pkg;
  mkdirSync(dir, { recursive: true });
  const pack = Bun.spawnSync(["npm", "pack", `${name}@${version}`, "--silent"], { cwd: dir, stderr: "pipe" });
  if (pack.exitCode !== 0) fail(`npm pack ${name}@${version} failed: ${pack.stderr.toString()}`);
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (!tgz) fail(`npm pack ${name} produced no tarball`);
  const untar = Bun.spawnSync(["tar", "xzf", tgz, "-C", dir], { cwd: dir, stderr: "pipe" });
  if (untar.exitCode !== 0) fail(`cannot unpack ${tgz}: ${untar.stderr.toString()}`);
  rmSync(join(dir, tgz));
  if (!existsSync(join(pkg, "package.json"))) fail(`${name} has no package.json after unpacking`);
  return pkg;
}

/** The aarch64 Bun runtime at the version of the Bun doing the build. */
function arm64Runtime(): string {
  const bin = join(packedPackage("@oven/bun-linux-aarch64", Bun.version), "bin", "bun");
  if (!existsSync(bin)) fail(`${bin} missing in @oven/bun-linux-aarch64`);
  return bin;
}

/** Native addons whose x64 build npm installed; the arm64 build swaps in their aarch64 package. */
const NATIVE_ADDONS = [
  { host: "@node-rs/jieba-linux-x64-gnu", arm64: "@node-rs/jieba-linux-arm64-gnu" },
  { host: "@img/sharp-linux-x64", arm64: "@img/sharp-linux-arm64" },
];

/** Shared libraries embedded by path whose arm64 build lives in another npm package. */
const NATIVE_LIBRARIES = [
  {
    host: "@img/sharp-libvips-linux-x64",
    arm64: "@img/sharp-libvips-linux-arm64",
    file: /sharp-libvips-linux-x64\/lib\/(libvips-cpp\.so\.[\d.]+)$/,
  },
];

function nativeAddonsFor(arch: Arch): BunPlugin {
  return {
    name: "homed-native-addons",
    setup(build) {
      if (arch !== "arm64") return;
      for (const addon of NATIVE_ADDONS) {
        const version = (
          JSON.parse(readFileSync(join(ROOT, "node_modules", addon.host, "package.json"), "utf8")) as {
            version: string;
          }
        ).version;
        const pkg = packedPackage(addon.arm64, version);
        const main = (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { main: string }).main;
        const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as {
          exports?: Record<string, string>;
        };
        const escaped = addon.arm64.replace(/[/.]/g, "\\$&");
        build.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, (args) => {
          const sub = args.path.slice(addon.arm64.length); // "" or "/package.json", "/sharp.node", …
          if (sub === "") return { path: join(pkg, main) };
          const mapped = manifest.exports?.[`.${sub}`];
          return { path: join(pkg, mapped ?? `.${sub}`) };
        });
      }
      for (const lib of NATIVE_LIBRARIES) {
        const version = (
          JSON.parse(readFileSync(join(ROOT, "node_modules", lib.host, "package.json"), "utf8")) as { version: string }
        ).version;
        const pkg = packedPackage(lib.arm64, version);
        build.onResolve({ filter: lib.file }, (args) => {
          const file = join(pkg, "lib", (lib.file.exec(args.path) as RegExpExecArray)[1] as string);
          if (!existsSync(file)) fail(`${file} is missing in ${lib.arm64}@${version}`);
          return { path: file };
        });
      }
    },
  };
}

/**
 * Point the shared libraries the code embeds at the target architecture's builds: our shim
 * (built per arch by make) and onnxruntime's (its npm package ships linux/x64 and linux/arm64).
 */
function nativeShimFor(arch: Arch): BunPlugin {
  const file = join(DIST, "native", `libhomed-shim-${arch}.so`);
  const ort = join(ROOT, "node_modules/onnxruntime-node/bin/napi-v6/linux", arch, "libonnxruntime.so.1");
  return {
    name: "homed-native-shim",
    setup(build) {
      build.onResolve({ filter: /libhomed-shim\.so$/ }, () => {
        if (!existsSync(file)) fail(`${file} is missing; run make`);
        return { path: file };
      });
      build.onResolve({ filter: /linux\/x64\/libonnxruntime\.so\.1$/ }, () => {
        if (!existsSync(ort)) fail(`${ort} is missing (onnxruntime-node)`);
        return { path: ort };
      });
    },
  };
}

async function main(): Promise<void> {
  const [entryName, archName = "x64"] = process.argv.slice(2);
  if (!entryName || !(entryName in entries)) fail(`usage: bun scripts/build.ts homed|waiter x64|arm64`);
  if (archName !== "x64" && archName !== "arm64") fail(`unknown arch ${archName}`);
  const entry = entries[entryName as Entry];
  const arch = archName as Arch;
  const outfile = join(DIST, entry.out[arch]);
  const tmp = `${outfile}.tmp`;
  const t0 = performance.now();
  const result = await Bun.build({
    entrypoints: [join(ROOT, entry.src)],
    minify: true,
    sourcemap: "none",
    // Each built-in plugin's code in its own chunk, loaded when that plugin runs: bundled into
    // one, the browser plugin's playwright-core alone made the kernel 12 MiB larger and 100 ms
    // slower to start, though the kernel never runs it.
    splitting: true,
    plugins: [nativeShimFor(arch), nativeAddonsFor(arch)],
    compile: {
      target: arch === "x64" ? "bun-linux-x64" : "bun-linux-arm64",
      outfile: tmp,
      ...(arch === "arm64" ? { executablePath: arm64Runtime() } : {}),
      // A daemon must not pick up a stray .env or bunfig.toml from whatever directory it runs in.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    fail(`compiling ${entry.src} for ${arch} failed`);
  }
  renameSync(tmp, outfile);
  console.log(`build: ${entry.out[arch]} (${arch}) in ${Math.round(performance.now() - t0)} ms`);
}

await main();
