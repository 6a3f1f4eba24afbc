/**
 * The `code` plugin: code_run runs a JavaScript, TypeScript or Python program in the shell
 * plugin's sandbox (plugins/shell/sandbox.ts, shared on purpose: one confinement to get right)
 * and reports its output, exit status and what it did to the workspace. Lazy.
 */
import { connectPlugin, withRun } from "../sdk/index.ts";
import {
  failed,
  formatResult,
  loadSandboxSettings,
  runSandboxed,
  sandboxRefusal,
  skillBinds,
} from "../shell/sandbox.ts";
import { prepareProgram } from "./runner.ts";
import { TOOLS } from "./tools.ts";
import { describeChanges, snapshotWorkspace } from "./workspace-diff.ts";

const plugin = await connectPlugin();
const settings = await loadSandboxSettings(plugin);

await plugin.tools([
  withRun(TOOLS.code_run, async (args, ctx) => {
    const refused = await sandboxRefusal(settings, "code_run");
    if (refused) return { content: refused, isError: true };
    const prepared = prepareProgram(settings, args.language, args.code);
    if ("refused" in prepared) return { content: prepared.refused, isError: true };
    using program = prepared;
    const before = snapshotWorkspace(settings.workspace);
    // The usable skills' folders, read-only at /skills/<name>, as in shell_run.
    const cmd = { ...program.cmd, roBinds: [...(program.cmd.roBinds ?? []), ...(await skillBinds(plugin))] };
    const r = await runSandboxed(settings, "code_run", cmd, { timeoutMs: args.timeout_ms, signal: ctx.signal });
    if ("refused" in r) return { content: r.refused, isError: true };
    const changes = describeChanges(before, snapshotWorkspace(settings.workspace));
    const text = `${args.language}: ${formatResult(r)}\n--- workspace files ---\n${changes || "(none created, changed or deleted)"}`;
    return { content: text, isError: failed(r) };
  }),
]);
await plugin.ready();
plugin.log.info("code plugin ready", { mode: settings.mode, network: settings.network });
