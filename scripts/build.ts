/**
 * Compile one of homed's executables: `bun scripts/build.ts homed|waiter x64|arm64`, or the
 * waiter for another OS: `bun scripts/build.ts waiter windows-x64|darwin-arm64|darwin-x64`.
 *
 * x64 is the host: Bun compiles with its own runtime. The others are cross builds, offline: the
 * target's Bun runtime comes from its npm package (@oven/bun-linux-aarch64, bun-windows-x64,
 * bun-darwin-aarch64, bun-darwin-x64) at the same version as our pinned bun and checked against
 * package-lock.json's integrity (their platform check refuses a normal install here, so we
 * `npm pack` and unpack them); Bun never downloads a runtime itself. For arm64 the native shim
 * import is redirected to the arm64 build of native/shim.c. The waiter imports no native code
 * (src/client, protocol, ipc, data-paths), so it needs no shim on Windows or macOS.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BunPlugin } from "bun";

const ROOT = resolve(import.meta.dir, "..");
const DIST = join(ROOT, "dist");

type Arch = "x64" | "arm64";
type Foreign = "windows-x64" | "darwin-arm64" | "darwin-x64";
type Target = Arch | Foreign;

const entries: Record<string, { src: string; out: Partial<Record<Target, string>> }> = {
  homed: { src: "src/main.ts", out: { x64: "homed", arm64: "homed-linux-arm64" } },
  waiter: {
    src: "src/waiter.ts",
    out: {
      x64: "waiter",
      arm64: "waiter-linux-arm64",
      "windows-x64": "waiter-windows-amd64.exe",
      "darwin-arm64": "waiter-darwin-arm64",
      "darwin-x64": "waiter-darwin-amd64",
    },
  },
};

/** Each cross target: Bun's target name and the npm package (and file) holding its runtime. */
const CROSS: Record<Exclude<Target, "x64">, { bun: string; pkg: string; bin: string }> = {
  arm64: { bun: "bun-linux-arm64", pkg: "@oven/bun-linux-aarch64", bin: "bin/bun" },
  "windows-x64": { bun: "bun-windows-x64", pkg: "@oven/bun-windows-x64", bin: "bin/bun.exe" },
  "darwin-arm64": { bun: "bun-darwin-arm64", pkg: "@oven/bun-darwin-aarch64", bin: "bin/bun" },
  "darwin-x64": { bun: "bun-darwin-x64", pkg: "@oven/bun-darwin-x64", bin: "bin/bun" },
};

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
  checkIntegrity(name, version, join(dir, tgz));
  const untar = Bun.spawnSync(["tar", "xzf", tgz, "-C", dir], { cwd: dir, stderr: "pipe" });
  if (untar.exitCode !== 0) fail(`cannot unpack ${tgz}: ${untar.stderr.toString()}`);
  rmSync(join(dir, tgz));
  if (!existsSync(join(pkg, "package.json"))) fail(`${name} has no package.json after unpacking`);
  return pkg;
}

/** When package-lock.json pins `name` at `version`, the tarball must match its sha512 integrity. */
function checkIntegrity(name: string, version: string, tgz: string): void {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; integrity?: string }>;
  };
  const pinned = lock.packages[`node_modules/${name}`];
  if (pinned?.version !== version || !pinned.integrity?.startsWith("sha512-")) return;
  const got = `sha512-${createHash("sha512").update(readFileSync(tgz)).digest("base64")}`;
  if (got !== pinned.integrity) {
    rmSync(tgz);
    fail(`${name}@${version} from the registry is not the one package-lock.json pins (${got})`);
  }
}

/** The target's Bun runtime at the version of the Bun doing the build. */
function crossRuntime(target: Exclude<Target, "x64">): string {
  const { pkg, bin } = CROSS[target];
  const path = join(packedPackage(pkg, Bun.version), bin);
  if (!existsSync(path)) fail(`${path} missing in ${pkg}`);
  return path;
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
 * silk-wasm (the QQ plugin's SILK decoder) finds its WebAssembly beside its module at run time
 * (`new URL("silk.wasm", import.meta.url)`), which is no file in a compiled binary: the module
 * imports it as an embedded file instead. Fails the build if silk-wasm changed that line.
 */
function embeddedWasm(): BunPlugin {
  const needle = 'new URL("silk.wasm",import.meta.url).href';
  return {
    name: "homed-embedded-wasm",
    setup(build) {
      build.onLoad({ filter: /silk-wasm[\\/]lib[\\/]index\.mjs$/ }, async (args) => {
        const src = await Bun.file(args.path).text();
        if (!src.includes(needle)) fail(`silk-wasm no longer locates its wasm with ${needle}: update embeddedWasm`);
        return {
          contents: `import silkWasm from "./silk.wasm" with { type: "file" };\n${src.replace(needle, "silkWasm")}`,
          loader: "js",
        };
      });
    },
  };
}

/**
 * Point the shared libraries the code embeds at the target architecture's builds: our shim
 * (built per arch by make, also inside the SDK that `homed plugin new` vendors) and
 * onnxruntime's (its npm package ships linux/x64 and linux/arm64).
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
      // What `homed plugin new` vendors carries the shim too (scripts/build-sdk.ts).
      build.onResolve({ filter: /dist\/sdk\/vendor\.bin$/ }, () => {
        const vendor = join(DIST, "sdk", arch === "x64" ? "vendor.bin" : `vendor-${arch}.bin`);
        if (!existsSync(vendor)) fail(`${vendor} is missing; run make`);
        return { path: vendor };
      });
      build.onResolve({ filter: /linux\/x64\/libonnxruntime\.so\.1$/ }, () => {
        if (!existsSync(ort)) fail(`${ort} is missing (onnxruntime-node)`);
        return { path: ort };
      });
    },
  };
}

async function main(): Promise<void> {
  const [entryName, targetName = "x64"] = process.argv.slice(2);
  const entry = entryName ? entries[entryName] : undefined;
  if (!entry)
    fail(`usage: bun scripts/build.ts homed|waiter x64|arm64 (waiter also windows-x64|darwin-arm64|darwin-x64)`);
  const outName = entry.out[targetName as Target];
  if (!outName) fail(`${entryName} is not built for ${targetName}`);
  const target = targetName as Target;
  // Only the Linux builds embed native code; the waiter for Windows and macOS has none.
  const arch: Arch = target === "arm64" ? "arm64" : "x64";
  const linux = target === "x64" || target === "arm64";
  const outfile = join(DIST, outName);
  // Bun adds .exe to a Windows outfile that lacks it, so the temporary name keeps the suffix.
  const tmp = outfile.endsWith(".exe") ? `${outfile.slice(0, -4)}.tmp.exe` : `${outfile}.tmp`;
  const t0 = performance.now();
  const result = await Bun.build({
    entrypoints: [join(ROOT, entry.src)],
    minify: true,
    sourcemap: "none",
    // Each built-in plugin's code in its own chunk, loaded when that plugin runs: bundled into
    // one, the browser plugin's playwright-core alone made the kernel 12 MiB larger and 100 ms
    // slower to start, though the kernel never runs it.
    splitting: true,
    plugins: linux ? [nativeShimFor(arch), nativeAddonsFor(arch), embeddedWasm()] : [],
    compile: {
      target: (target === "x64" ? "bun-linux-x64" : CROSS[target].bun) as Bun.Build.CompileTarget,
      outfile: tmp,
      ...(target === "x64" ? {} : { executablePath: crossRuntime(target) }),
      // A daemon must not pick up a stray .env or bunfig.toml from whatever directory it runs in.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    fail(`compiling ${entry.src} for ${target} failed`);
  }
  renameSync(tmp, outfile);
  console.log(`build: ${outName} (${target}) in ${Math.round(performance.now() - t0)} ms`);
}

await main();
