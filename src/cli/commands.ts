/**
 * The subcommands of `homed`. Each returns its exit status; errors it expects are thrown as
 * HomedError and mapped to a message and status by src/main.ts.
 */
import { existsSync, writeFileSync } from "node:fs";
import { ControlMethod, StatusResult } from "../protocol/control.ts";
import { PluginInfo } from "../protocol/plugin.ts";
import { BUILTIN_ENTRIES } from "../generated/builtin-plugins.ts";
import { HomedError } from "../protocol/errors.ts";
import { callDaemon } from "../client/control-client.ts";
import { formatPlugin, formatStatus } from "../client/format-status.ts";
import { CONFIG_TEMPLATE } from "../kernel/config.ts";
import { ensureDataDir } from "../kernel/data-dir.ts";
import { dataPaths, defaultDataDir } from "../kernel/data-paths.ts";
import { Kernel } from "../kernel/kernel.ts";
import { VERSION } from "../version.ts";
import { formatFlags, parseFlags, type FlagSpec } from "./flags.ts";

export const DATA_FLAG: FlagSpec = { name: "data", kind: "string", arg: "DIR", usage: "data directory (default $XDG_DATA_HOME/homed, or $HOMED_DATA)" };
export const LISTEN_FLAG: FlagSpec = { name: "listen", kind: "string", arg: "ADDR", usage: "web UI address HOST:PORT (default 127.0.0.1:8080)" };
const JSON_FLAG: FlagSpec = { name: "json", kind: "bool", usage: "print the answer as JSON" };
const FORCE_FLAG: FlagSpec = { name: "force", kind: "bool", usage: "overwrite an existing config.toml" };

export interface Subcommand {
  name: string;
  summary: string;
  flags: FlagSpec[];
  run(values: Record<string, string | boolean>, rest: string[]): Promise<number>;
}

/** The data dir a command works on: -data, then $HOMED_DATA, then the XDG default. */
export function resolveDataDir(values: Record<string, string | boolean>): string {
  const flag = values.data;
  if (typeof flag === "string" && flag !== "") return flag;
  return process.env.HOMED_DATA || defaultDataDir();
}

function noArgs(name: string, rest: string[]): void {
  if (rest.length > 0) throw new HomedError("usage", `${name}: unexpected argument "${rest[0]}"`);
}

export const runDaemon: Subcommand = {
  name: "",
  summary: "run the daemon",
  flags: [DATA_FLAG, LISTEN_FLAG],
  async run(values) {
    const overrides: Record<string, unknown> = {};
    if (typeof values.listen === "string") overrides.listen = values.listen;
    const kernel = await Kernel.start({ dataDir: resolveDataDir(values), overrides });
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        void kernel.stop(signal).then(resolve);
      };
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
    });
    return 0;
  },
};

export const initconfig: Subcommand = {
  name: "initconfig",
  summary: "write a commented config.toml into the data dir",
  flags: [DATA_FLAG, FORCE_FLAG],
  async run(values, rest) {
    noArgs("initconfig", rest);
    const paths = dataPaths(resolveDataDir(values));
    ensureDataDir(paths);
    if (existsSync(paths.config) && values.force !== true) {
      throw new HomedError("config", `${paths.config} already exists; use -force to overwrite it`, { file: paths.config });
    }
    writeFileSync(paths.config, CONFIG_TEMPLATE, { mode: 0o600 });
    process.stdout.write(`wrote ${paths.config}\n`);
    return 0;
  },
};

export const status: Subcommand = {
  name: "status",
  summary: "ask the running daemon how it is",
  flags: [DATA_FLAG, JSON_FLAG],
  async run(values, rest) {
    noArgs("status", rest);
    const paths = dataPaths(resolveDataDir(values));
    const st = await callDaemon(paths.socket, ControlMethod.Status, {}, StatusResult);
    process.stdout.write(values.json ? JSON.stringify(st) + "\n" : formatStatus(st) + "\n");
    return 0;
  },
};

export const version: Subcommand = {
  name: "version",
  summary: "print the version",
  flags: [],
  async run(_values, rest) {
    noArgs("version", rest);
    process.stdout.write(`homed ${VERSION} (bun ${Bun.version}, ${process.platform}/${process.arch})\n`);
    return 0;
  },
};

export const pluginRestart: Subcommand = {
  name: "plugin-restart",
  summary: "restart a plugin (and re-arm automatic restarts)",
  flags: [DATA_FLAG, JSON_FLAG],
  async run(values, rest) {
    const name = rest[0];
    if (!name || rest.length > 1) throw new HomedError("usage", "plugin-restart takes one plugin name");
    const paths = dataPaths(resolveDataDir(values));
    const info = await callDaemon(paths.socket, ControlMethod.PluginRestart, { name }, PluginInfo);
    process.stdout.write(values.json ? JSON.stringify(info) + "\n" : formatPlugin(info) + "\n");
    return 0;
  },
};

/** Internal: run a built-in plugin (the kernel starts these; a person never needs to). */
export const plugin: Subcommand = {
  name: "plugin",
  summary: "run a built-in plugin (started by the daemon)",
  flags: [],
  async run(_values, rest) {
    const name = rest[0] ?? "";
    const entry = BUILTIN_ENTRIES[name];
    if (!entry || rest.length > 1) throw new HomedError("usage", `plugin takes one of: ${Object.keys(BUILTIN_ENTRIES).join(", ")}`);
    if (!process.env.HOMED_PLUGIN_NAME) throw new HomedError("usage", `plugins are started by the homed daemon, not by hand`);
    await entry();
    // The plugin keeps the process alive through its own handles (stdin, servers).
    return await new Promise<number>(() => {});
  },
};

export const SUBCOMMANDS: readonly Subcommand[] = [initconfig, status, pluginRestart, version, plugin];

export function usage(): string {
  const lines = [
    "homed — a self-hosted agent kernel",
    "",
    "Usage:",
    "  homed            [-data DIR] [-listen ADDR]  run the daemon",
    ...SUBCOMMANDS.map((c) => `  homed ${c.name.padEnd(10)} ${c.flags.map((f) => `[-${f.name}${f.arg ? ` ${f.arg}` : ""}]`).join(" ").padEnd(20)} ${c.summary}`),
    "",
    "Flags:",
    formatFlags([DATA_FLAG, LISTEN_FLAG, JSON_FLAG, FORCE_FLAG]),
    "",
    "Flags take one or two dashes: -data and --data are the same.",
  ];
  return lines.join("\n") + "\n";
}
