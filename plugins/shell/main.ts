/**
 * The `shell` plugin: shell_run runs a command in the sandbox (sandbox.ts) and waits for it, or
 * starts it as a background job; shell_jobs and shell_kill follow and end jobs. Lazy: started on
 * the first call, stopped when idle — and its jobs end with it.
 */
import { existsSync } from "node:fs";
import { connectPlugin, withRun } from "../sdk/index.ts";
import { JobTable } from "./jobs.ts";
import { failed, formatResult, loadSandboxSettings, runSandboxed, sandboxRefusal } from "./sandbox.ts";
import { TOOLS } from "./tools.ts";
import { skillBinds } from "./skill-binds.ts";

/** bash where the system has it (what models write for), else POSIX sh. */
const SHELL = existsSync("/usr/bin/bash") || existsSync("/bin/bash") ? "bash" : "sh";
const DEFAULT_TAIL_KB = 4;

const plugin = await connectPlugin();
const settings = await loadSandboxSettings(plugin);
const jobs = new JobTable(settings);
plugin.onShutdown(() => jobs.stopAll());

/** The command, with the usable skills' folders read-only at /skills/<name> (skill-binds.ts). */
const shellCommand = async (command: string) => ({ argv: [SHELL, "-c", command], roBinds: await skillBinds(plugin) });

await plugin.tools([
  withRun(TOOLS.shell_run, async (args, ctx) => {
    if (args.background) {
      const refused = await sandboxRefusal(settings, "shell_run");
      if (refused) return { content: refused, isError: true };
      const started = jobs.start(args.command, await shellCommand(args.command), args.timeout_ms);
      if ("refused" in started) return { content: started.refused, isError: true };
      return `started background job ${started.id}; see it with shell_jobs {"id":"${started.id}"}, end it with shell_kill`;
    }
    const r = await runSandboxed(settings, "shell_run", await shellCommand(args.command), {
      timeoutMs: args.timeout_ms,
      signal: ctx.signal,
    });
    if ("refused" in r) return { content: r.refused, isError: true };
    return { content: formatResult(r), isError: failed(r) };
  }),
  withRun(TOOLS.shell_jobs, (args) => {
    if (args.id === undefined) return jobs.list();
    const shown = jobs.show(args.id, (args.tail_kb ?? DEFAULT_TAIL_KB) * 1024);
    return shown ?? { content: noSuchJob("shell_jobs", args.id), isError: true };
  }),
  withRun(TOOLS.shell_kill, async (args) => {
    const said = await jobs.kill(args.id);
    return said ?? { content: noSuchJob("shell_kill", args.id), isError: true };
  }),
]);
await plugin.ready();
plugin.log.info("shell plugin ready", { mode: settings.mode, network: settings.network });

function noSuchJob(tool: string, id: string): string {
  const known = jobs.ids();
  return `${tool}: no job ${id}${known.length > 0 ? ` (jobs: ${known.join(", ")})` : " (no background jobs yet)"}`;
}
