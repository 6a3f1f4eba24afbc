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

const plugin = await connectPlugin();
const cfg = await plugin.call(PluginMethod.ConfigGet, { section: "tools.files" }, SETTINGS.schema);
// Roots are made and resolved on the first call, so a bad root is reported to the model then.
let confinement: Confinement | undefined;
const roots = () => {
  confinement ??= new Confinement(cfg.roots, plugin.hello.dataDir);
  return confinement;
};

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
  withRun(TOOLS.files_read, (a) => guarded("files_read", a.path, () => filesRead(roots(), a, cfg.max_read_kb))),
  withRun(TOOLS.files_write, (a) => guarded("files_write", a.path, () => filesWrite(roots(), a, cfg.max_write_kb))),
  withRun(TOOLS.files_edit, (a) => guarded("files_edit", a.path, () => filesEdit(roots(), a, cfg.max_write_kb))),
  withRun(TOOLS.files_list, (a) => guarded("files_list", a.path, () => filesList(roots(), a))),
  withRun(TOOLS.files_glob, (a, ctx) => guarded("files_glob", a.path, () => filesGlob(roots(), a, ctx.signal))),
  withRun(TOOLS.files_grep, (a, ctx) => guarded("files_grep", a.path, () => filesGrep(roots(), a, ctx.signal))),
  withRun(TOOLS.files_move, (a) => guarded("files_move", a.from, () => filesMove(roots(), a))),
  withRun(TOOLS.files_delete, (a) => guarded("files_delete", a.path, () => filesDelete(roots(), a))),
]);
await plugin.ready();
plugin.log.info("files plugin ready", { roots: cfg.roots.join(",") });
