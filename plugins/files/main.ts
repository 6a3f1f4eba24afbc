/**
 * The `files` plugin: files_read, files_write, files_edit, files_list, files_glob, files_grep,
 * files_move and files_delete, confined to [tools.files] roots (confine.ts). Lazy: the kernel starts it on the
 * first call and stops it when idle. Every failure is returned as text that says what to do.
 */
import { connectPlugin, type ToolReturn, withRun } from "../sdk/index.ts";
import { PluginMethod } from "../../src/protocol/plugin.ts";
import { Confinement, FilesError } from "../sdk/confine.ts";
import { filesEdit } from "./edit.ts";
import { filesGlob } from "./glob.ts";
import { filesGrep } from "./grep.ts";
import { filesList } from "./list.ts";
import { filesDelete, filesMove } from "./move.ts";
import { filesRead } from "./read.ts";
import { SETTINGS } from "./settings.ts";
import { TOOLS } from "./tools.ts";
import { filesWrite } from "./write.ts";
import { describeFsError } from "./fs-errors.ts";
import { realpathSync } from "node:fs";
import { resolve, sep } from "node:path";

const plugin = await connectPlugin();
const cfg = await plugin.call(PluginMethod.ConfigGet, { section: "tools.files" }, SETTINGS.schema);
// Roots are made and resolved on the first call, so a bad root is reported to the model then.
let confinement: Confinement | undefined;
const roots = () => {
  confinement ??= new Confinement(cfg.roots, plugin.hello.dataDir);
  return confinement;
};

/** The trusted folders' real paths, resolved on first use (one that does not exist trusts nothing). */
let trustedReal: { label: string; real: string }[] | undefined;
const trusted = () => {
  trustedReal ??= cfg.trusted.flatMap((label) => {
    try {
      return [{ label, real: realpathSync(resolve(plugin.hello.dataDir, label)) }];
    } catch {
      plugin.log.warn("a trusted folder does not exist: it trusts nothing", { folder: label });
      return [];
    }
  });
  return trustedReal;
};
const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * What a reading tool returned, said to be the owner's own when `path` (a file, or the folder
 * searched) is inside a folder of [tools.files] trusted: then it carries no untrusted mark.
 */
function ownIfTrusted(path: string | undefined, out: ToolReturn): ToolReturn {
  if (typeof out !== "string" || trusted().length === 0) return out;
  let real: string;
  try {
    real = roots().existing(path ?? ".").real;
  } catch {
    return out;
  }
  const folder = trusted().find((t) => inside(real, t.real));
  return folder
    ? { content: out, own: `a file of ${folder.label}, a folder the owner trusts ([tools.files] trusted)` }
    : out;
}

/** Run a tool body; a FilesError or a system error becomes "<tool>: <what to do>". */
async function guarded(
  tool: string,
  path: string | undefined,
  body: () => string | Promise<string>,
): Promise<ToolReturn> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof FilesError) return { content: `${tool}: ${err.message}`, isError: true };
    const message = describeFsError(err, path ?? ".");
    plugin.log.warn("files tool failed", { tool, error: (err as Error).message });
    return { content: `${tool}: ${message}`, isError: true };
  }
}

await plugin.tools([
  withRun(TOOLS.files_read, async (a) =>
    ownIfTrusted(a.path, await guarded("files_read", a.path, () => filesRead(roots(), a, cfg.max_read_kb))),
  ),
  withRun(TOOLS.files_write, (a) => guarded("files_write", a.path, () => filesWrite(roots(), a, cfg.max_write_kb))),
  withRun(TOOLS.files_edit, async (a) =>
    ownIfTrusted(a.path, await guarded("files_edit", a.path, () => filesEdit(roots(), a, cfg.max_write_kb))),
  ),
  withRun(TOOLS.files_list, async (a) =>
    ownIfTrusted(a.path, await guarded("files_list", a.path, () => filesList(roots(), a))),
  ),
  withRun(TOOLS.files_glob, async (a, ctx) =>
    ownIfTrusted(a.path, await guarded("files_glob", a.path, () => filesGlob(roots(), a, ctx.signal))),
  ),
  withRun(TOOLS.files_grep, async (a, ctx) =>
    ownIfTrusted(a.path, await guarded("files_grep", a.path, () => filesGrep(roots(), a, ctx.signal))),
  ),
  withRun(TOOLS.files_move, (a) => guarded("files_move", a.from, () => filesMove(roots(), a))),
  withRun(TOOLS.files_delete, (a) => guarded("files_delete", a.path, () => filesDelete(roots(), a))),
]);
await plugin.ready();
plugin.log.info("files plugin ready", { roots: cfg.roots.join(",") });
