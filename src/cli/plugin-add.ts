/**
 * `homed plugin add DIR [-yes]` and `homed plugin remove NAME`: external plugins of a data
 * dir. `add` checks the folder as the daemon would run it, shows what the plugin asks for — its
 * tools and their risk, the kernel facilities it requires, the network — and asks on a terminal
 * (elsewhere it needs -yes), then copies the folder into DATA/plugins/NAME and writes what the
 * owner allowed into DATA/plugins.json (src/kernel/plugins/grants.ts). The daemon runs it at its
 * next start, in its sandbox (src/kernel/plugins/sandbox.ts).
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { HomedError } from "../protocol/errors.ts";
import { outputIsOwn } from "../protocol/agent.ts";
import type { PluginManifest } from "../protocol/manifest.ts";
import { ensureDataDir } from "../kernel/data-dir.ts";
import type { DataPaths } from "../kernel/data-paths.ts";
import { folderSpec } from "../kernel/plugins/catalog.ts";
import { grantsFile, readGrants, updateGrants } from "../kernel/plugins/grants.ts";
import { PLUGIN_STATE_DIR } from "../kernel/plugins/sandbox.ts";

/** What each kernel facility lets a plugin do, in a person's words. */
const FACILITY_WORDS: Record<string, string> = {
  "kernel.agent":
    "offer tools, act at the turn's stages, send messages and read every conversation (list them, read their messages)",
  "kernel.store": "keep records of its own in the daemon's store",
  "kernel.llm": "see which model provider and models are set (never the key)",
  "kernel.control": "kernel control methods",
};

interface FolderFile {
  path: string;
  size: number;
}

/** The folder's files (symbolic links that stay inside it included); a link leading out is refused. */
function folderFiles(root: string): FolderFile[] {
  const out: FolderFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const rel = relative(root, full);
      const st = lstatSync(full);
      if (st.isSymbolicLink()) {
        const target = resolve(dir, readlinkSync(full));
        if (relative(root, target).startsWith("..") || target === root)
          throw new HomedError(
            "forbidden",
            `${rel} links to ${target}, outside the plugin's folder: in its sandbox the plugin sees only its folder`,
          );
        out.push({ path: `${rel} -> ${readlinkSync(full)}`, size: 0 });
      } else if (st.isDirectory()) walk(full);
      else if (st.isFile()) out.push({ path: rel, size: st.size });
      else throw new HomedError("forbidden", `${rel} is neither a file, a folder nor a link`);
    }
  };
  walk(root);
  return out;
}

function sizeOf(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** What a person reads before saying yes: what it is, what it runs, what it asks for. */
function describe(m: PluginManifest, source: string, into: string, files: FolderFile[]): string {
  const lines = [`From ${source}, into ${into}:`, `  ${m.name}${m.description ? ` — ${m.description}` : ""}`];
  lines.push(
    `  runs: ${m.main ? `${m.main} on the Bun inside homed` : m.exec}${m.args.length ? ` ${m.args.join(" ")}` : ""}`,
  );
  for (const t of m.tools)
    lines.push(
      `  tool ${t.name} (${t.risk}${outputIsOwn(t) ? "" : ", what it returns marks the conversation untrusted"})`,
    );
  if (m.tools.length === 0) lines.push("  tools: none declared in plugin.json (it may register some when it runs)");
  for (const f of m.requires)
    lines.push(`  requires ${f}: ${FACILITY_WORDS[f] ?? "a facility another plugin provides"}`);
  lines.push(`  network: ${m.network ? "it asks for the network" : "none (it does not ask for it)"}`);
  const bytes = files.reduce((n, f) => n + f.size, 0);
  lines.push(`  ${files.length} files, ${sizeOf(bytes)}`);
  lines.push(
    `It runs in a sandbox: its folder read-only, a state folder of its own (DATA/${PLUGIN_STATE_DIR}/${m.name}), no data dir (keys, token, database), ${m.network ? "the network only if you allow it" : "no network"}.`,
  );
  return `${lines.join("\n")}\n`;
}

async function ask(question: string): Promise<boolean> {
  // readline, closed once answered: a stream reader left on a terminal's stdin keeps the process alive.
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  // Ctrl-D (readline aborts the question) is a no, like an empty answer.
  const answer = await rl
    .question(question)
    .catch(() => "")
    .finally(() => rl.close());
  return ["y", "yes"].includes(answer.trim().toLowerCase());
}

/** The name plugin.json gives (checked with the rest by folderSpec), or "" when it gives none. */
function manifestName(dir: string): string {
  try {
    const raw = JSON.parse(readFileSync(join(dir, "plugin.json"), "utf8")) as { name?: unknown };
    return typeof raw?.name === "string" ? raw.name : "";
  } catch {
    return "";
  }
}

export async function addPlugin(paths: DataPaths, source: string, yes: boolean): Promise<number> {
  const src = resolve(source);
  if (!existsSync(join(src, "plugin.json")))
    throw new HomedError("not_found", `${source} is not a plugin folder (no plugin.json in it)`);
  const spec = folderSpec(src, manifestName(src));
  if (spec.problem) throw new HomedError("config", `${source}: ${spec.problem}`);
  const name = spec.manifest.name;
  const pluginsDir = join(paths.dir, "plugins");
  const dest = join(pluginsDir, name);
  if (existsSync(dest))
    throw new HomedError("conflict", `${dest} is already there: homed plugin remove ${name} first`, { name });
  const { problem } = readGrants(paths.dir);
  if (problem) throw new HomedError("config", `${problem}; fix or remove it first`, { file: grantsFile(paths.dir) });
  const files = folderFiles(src);
  process.stdout.write(describe(spec.manifest, src, dest, files));

  let network = false;
  if (yes) network = spec.manifest.network;
  else {
    if (!process.stdin.isTTY)
      throw new HomedError("usage", "not asked on a terminal: pass -yes to add this plugin without asking");
    if (!(await ask("Add? [y/N] "))) {
      process.stdout.write("nothing added\n");
      return 1;
    }
    if (spec.manifest.network) network = await ask(`Let ${name} use the network? [y/N] `);
  }

  ensureDataDir(paths);
  mkdirSync(pluginsDir, { recursive: true, mode: 0o700 });
  // A dot folder is not a plugin (skipped when listing) until it is renamed whole.
  const tmp = mkdtempSync(join(pluginsDir, `.adding-${name}-`));
  try {
    cpSync(src, tmp, { recursive: true, verbatimSymlinks: true });
    updateGrants(paths.dir, (g) => {
      g.added[name] = { from: src, at: new Date().toISOString(), network };
    });
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  const net = spec.manifest.network ? (network ? ", with the network" : ", without the network") : "";
  process.stdout.write(`added ${name} to ${dest}${net}; it starts when homed next starts (restart the daemon)\n`);
  return 0;
}

export function removePlugin(paths: DataPaths, name: string): number {
  const dest = join(paths.dir, "plugins", name);
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(name) || !existsSync(dest))
    throw new HomedError("not_found", `there is no plugin ${name} in ${join(paths.dir, "plugins")}`, { name });
  ensureDataDir(paths);
  rmSync(dest, { recursive: true, force: true });
  if (readGrants(paths.dir).grants.added[name]) updateGrants(paths.dir, (g) => void delete g.added[name]);
  const state = join(paths.dir, PLUGIN_STATE_DIR, name);
  const kept = existsSync(state) ? `; what it kept stays in ${state} (delete it if you no longer want it)` : "";
  process.stdout.write(`removed ${dest}${kept}; restart the daemon to stop it\n`);
  return 0;
}
