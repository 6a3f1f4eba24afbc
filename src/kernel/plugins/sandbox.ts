/**
 * The room an external plugin runs in. Built-in plugins are part of homed and keep the data
 * dir; a plugin someone else wrote gets, under bubblewrap (src/shared/bwrap-system.ts):
 *
 * - the system read-only, its own folder read-only (where it starts), and a private state
 *   folder DATA/plugin-state/NAME read-write, which its hello names as its dataDir and which is
 *   its HOME — nothing else of the host: not the data dir (secrets.json, web-token, homed.db,
 *   other plugins), not the owner's home, not the kernel's /proc;
 * - the network only when its manifest asks for it and the owner allowed it when adding it
 *   (DATA/plugins.json, src/kernel/plugins/grants.ts);
 * - the children's minimal environment without HOMED_DATA.
 *
 * What it needs of the person's data comes through the kernel methods its `requires` lists. A
 * machine without a working bwrap blocks external plugins with a reason; they run unconfined
 * only where the owner set [plugins] sandbox = "none".
 */
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { bwrapCannotRun, systemSandboxArgs } from "../../shared/bwrap-system.ts";
import type { PluginRoom, PluginSpec } from "./supervisor-options.ts";
import type { PluginGrants } from "./grants.ts";

export type PluginSandboxMode = "bwrap" | "none";

export const PLUGIN_STATE_DIR = "plugin-state";

export interface ConfineOptions {
  dataDir: string;
  mode: PluginSandboxMode;
  grants: PluginGrants;
  /** Where to look for bwrap (the daemon's PATH). */
  searchPath: string | undefined;
}

/** Folders the system part of the sandbox already shows read-only. */
const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/"];

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/** Why bwrap cannot confine plugins on this machine, or null (with its path) when it can. */
function probeBwrap(searchPath: string | undefined): { bwrap: string } | { refusal: string } {
  const bwrap = Bun.which("bwrap", searchPath === undefined ? {} : { PATH: searchPath });
  const advice = `; external plugins run only in its sandbox (or set [plugins] sandbox = "none" in config.toml to run them unconfined)`;
  if (!bwrap) return { refusal: `bubblewrap (bwrap) is not installed: install the Debian package bubblewrap${advice}` };
  const r = Bun.spawnSync([bwrap, ...systemSandboxArgs({ network: false }), "--", "true"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
    env: { PATH: searchPath ?? "/usr/bin:/bin" },
  });
  if (r.exitCode === 0) return { bwrap };
  const detail = r.stderr.toString().trim().split("\n")[0] || `exit ${r.exitCode}`;
  return { refusal: `${bwrapCannotRun(detail)}${advice}` };
}

/** bwrap's command line running `spec` in `room`. */
function bwrapCommand(bwrap: string, spec: PluginSpec, room: PluginRoom, realDir: string): string[] {
  const a = [bwrap, ...systemSandboxArgs({ network: room.network })];
  a.push("--ro-bind", realDir, spec.cwd);
  a.push("--bind", realpathSync(room.stateDir), room.stateDir);
  // The program itself when it lives elsewhere: homed's own Bun for a `main` plugin, or an
  // absolute `exec` outside the system folders.
  const program = spec.command[0] as string;
  const realProgram = realpathSync(program);
  if (!inside(realProgram, realDir) && !SYSTEM_PREFIXES.some((p) => realProgram.startsWith(p)))
    a.push("--ro-bind", realProgram, program);
  a.push("--chdir", spec.cwd, "--", ...spec.command);
  return a;
}

/**
 * The external plugins of `specs` given their room (built-in and blocked ones pass as they
 * are, and so do disabled ones): their state folders made, their commands wrapped in bwrap, or blocked with the reason
 * when they cannot be confined.
 */
export function confineExternal(specs: readonly PluginSpec[], opts: ConfineOptions): PluginSpec[] {
  let probe: { bwrap: string } | { refusal: string } | null = null;
  const data = realpathSync(opts.dataDir);
  return specs.map((spec) => {
    if (spec.builtin || spec.problem || spec.disabled) return spec;
    const name = spec.manifest.name;
    const stateDir = join(opts.dataDir, PLUGIN_STATE_DIR, name);
    const granted = opts.grants.added[name]?.network === true;
    const block = (problem: string): PluginSpec => ({ ...spec, command: [], problem });
    if (opts.mode === "none") {
      mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      return { ...spec, room: { sandbox: "none", network: true, stateDir } };
    }
    const realDir = realpathSync(spec.cwd);
    if (inside(data, realDir))
      return block(
        `the plugin's folder ${spec.cwd} is (or holds) the data dir ${data}: it would see the keys and the log`,
      );
    probe ??= probeBwrap(opts.searchPath);
    if ("refusal" in probe) return block(probe.refusal);
    if (!existsSync(stateDir)) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const room: PluginRoom = { sandbox: "bwrap", network: spec.manifest.network && granted, stateDir };
    return {
      ...spec,
      command: bwrapCommand(probe.bwrap, spec, room, realDir),
      cwd: "/",
      env: { ...spec.env, HOME: stateDir, TMPDIR: "/tmp" },
      room,
    };
  });
}

/** How an external plugin's room reads in its status. */
export function describeRoom(spec: PluginSpec): string {
  const room = spec.room;
  if (!room) return "";
  if (room.sandbox === "none") return `unconfined ([plugins] sandbox = "none"); state in ${room.stateDir}`;
  const net = room.network
    ? "network allowed"
    : spec.manifest.network
      ? "no network (its manifest asks for it; allow it with homed plugin add)"
      : "no network";
  return `bubblewrap, ${net}; state in ${room.stateDir}`;
}
