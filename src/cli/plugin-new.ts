/**
 * `homed plugin new NAME [-dir DIR]`: write a working plugin folder (plugin-template.ts) with
 * the SDK and valibot vendored into it, so the daemon runs it at its next start with no
 * install, no network and no Bun on the machine: `"main": "main.ts"` runs on the Bun inside
 * homed, and its imports resolve from the folder's own node_modules.
 *
 * Why vendored rather than resolved from the binary: a compiled homed cannot lend its bundled
 * modules to another program, and a registry may be unreachable (or the package unpublished);
 * files in the folder work offline on a fresh machine and are what `npm install` would write.
 */
import * as v from "valibot";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import vendorFile from "../../dist/sdk/vendor.bin" with { type: "file" };
import { HomedError } from "../protocol/errors.ts";
import { PluginManifest } from "../protocol/manifest.ts";
import { helloTool, templateFiles } from "./plugin-template.ts";

const VendoredFile = v.object({ path: v.string(), b64: v.string() });

/** The SDK package and its dependencies, as scripts/build-sdk.ts wrote them into the binary. */
async function vendoredFiles(): Promise<{ path: string; bytes: Buffer }[]> {
  const lines = (await Bun.file(vendorFile).text()).split("\n").filter(Boolean);
  return lines.map((line) => {
    const f = v.parse(VendoredFile, JSON.parse(line));
    return { path: f.path, bytes: Buffer.from(f.b64, "base64") };
  });
}

function versionOf(files: { path: string; bytes: Buffer }[], path: string): string {
  const file = files.find((f) => f.path === path);
  if (!file) throw new HomedError("not_found", `this homed was built without ${path}`);
  return (JSON.parse(file.bytes.toString("utf8")) as { version: string }).version;
}

/**
 * Write the plugin `name` into `dir` (which must not exist, or be empty). Returns what a
 * person reads: where it went and what to do next.
 */
export async function newPlugin(name: string, dir: string, pluginsDir: string): Promise<string> {
  const checked = v.safeParse(PluginManifest, { name });
  if (!checked.success)
    throw new HomedError("usage", `plugin name "${name}": ${checked.issues.map((i) => i.message).join("; ")}`);
  if (helloTool(name).length > 64)
    throw new HomedError(
      "usage",
      `plugin name "${name}" is too long for its tool's name (${helloTool(name)}: 64 at most)`,
    );
  const target = resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0)
    throw new HomedError("conflict", `${target} already exists and is not empty: choose another NAME or -dir`);

  const vendored = await vendoredFiles();
  const files = templateFiles({
    name,
    sdkVersion: versionOf(vendored, "vendor/homed-plugin-sdk/package.json"),
    valibotVersion: versionOf(vendored, "node_modules/valibot/package.json"),
  });
  const write = (path: string, data: string | Buffer) => {
    const full = join(target, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, data);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  for (const f of vendored) write(f.path, f.bytes);
  // What npm makes of "file:vendor/homed-plugin-sdk": a link to the folder.
  mkdirSync(join(target, "node_modules/@homed"), { recursive: true });
  symlinkSync("../../vendor/homed-plugin-sdk", join(target, "node_modules/@homed/plugin-sdk"));

  const home = resolve(pluginsDir, name);
  const where =
    home === target
      ? "homed loads it at its next start (restart the daemon)."
      : `homed loads plugins from ${pluginsDir}: move or link this folder to ${home}, then restart the daemon.`;
  return [
    `wrote ${target}`,
    `  plugin.json   the manifest ("main": "main.ts", transport stdio, requires kernel.agent)`,
    `  tools.ts      the tool ${helloTool(name)} (valibot schema, risk class, examples)`,
    `  main.ts       connects to homed, offers the tool, counts answers at after_output`,
    `  main.test.ts  tests: bun test, or BUN_BE_BUN=1 homed test`,
    `  vendor/, node_modules/  the SDK and valibot, so it runs with no install`,
    where,
    "",
  ].join("\n");
}
