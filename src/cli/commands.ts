/**
 * The subcommands of `homed`. Each returns its exit status; errors it expects are thrown as
 * HomedError and mapped to a message and status by src/main.ts.
 */
import * as v from "valibot";
import { accessSync, constants, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ControlMethod,
  LlmSetParams,
  LlmSettingsView,
  LlmTestResult,
  LlmSetTestedResult,
  StatusResult,
  LoginUrlResult,
  type LlmSettingField,
} from "../protocol/control.ts";
import { stdinLines } from "../client/stdin-lines.ts";
import { PluginInfo } from "../protocol/plugin.ts";
import { ReloadResult } from "../protocol/settings.ts";
import { BUILTIN_ENTRIES } from "../generated/builtin-plugins.ts";
import { HomedError } from "../protocol/errors.ts";
import { callDaemon } from "../client/control-client.ts";
import { formatPlugin, formatStatus } from "../client/format-status.ts";
import { configTemplate } from "../kernel/config/config.ts";
import { settingsSections } from "../kernel/config/sections.ts";
import { ensureDataDir } from "../kernel/data-dir.ts";
import { dataPaths, defaultDataDir } from "../kernel/data-paths.ts";
import { VERSION } from "../version.ts";
import { formatFlags, type FlagSpec } from "../client/flags.ts";
import { sizeHeap } from "../kernel/heap-size.ts";
import { startIdleTrim } from "../shared/idle-trim.ts";

export const DATA_FLAG: FlagSpec = {
  name: "data",
  kind: "string",
  arg: "DIR",
  usage: "data directory (default $XDG_DATA_HOME/homed, or $HOMED_DATA)",
};
export const LISTEN_FLAG: FlagSpec = {
  name: "listen",
  kind: "string",
  arg: "ADDR",
  usage: "web UI address HOST:PORT (default 127.0.0.1:8080)",
};
const JSON_FLAG: FlagSpec = { name: "json", kind: "bool", usage: "print the answer as JSON" };
const FORCE_FLAG: FlagSpec = { name: "force", kind: "bool", usage: "overwrite an existing config.toml" };

export interface Subcommand {
  name: string;
  summary: string;
  flags: FlagSpec[];
  /** The arguments after the flags, for the usage text (`DEST`). */
  args?: string;
  /** Flags may follow the arguments (`homed chat hello -conv x`); otherwise they end at the first. */
  flagsAnywhere?: boolean;
  run(values: Record<string, string | boolean>, rest: string[]): Promise<number>;
}

/** The data dir a command works on: -data, then $HOMED_DATA, then the XDG default. */
export function resolveDataDir(values: Record<string, string | boolean>): string {
  const flag = values.data;
  if (typeof flag === "string" && flag !== "") return flag;
  return process.env.HOMED_DATA || defaultDataDir();
}

/** Where the packaged system service keeps its data ($HOMED_SERVICE_DATA overrides, for tests and other layouts). */
export function serviceDataDir(): string {
  return process.env.HOMED_SERVICE_DATA || "/var/lib/homed";
}

/**
 * The data dir of the daemon a client command talks to: -data and $HOMED_DATA as for any
 * command; without them, the default one when a daemon listens there, else the system service's
 * when one listens there and this user may reach it (root, or the `homed` user: `sudo homed
 * status` finds the service), else the default (whose "not running" names the service's folder).
 */
export function resolveRunningDataDir(values: Record<string, string | boolean>): string {
  if ((typeof values.data === "string" && values.data !== "") || process.env.HOMED_DATA) return resolveDataDir(values);
  const own = defaultDataDir();
  if (existsSync(dataPaths(own).socket)) return own;
  const service = serviceDataDir();
  try {
    accessSync(dataPaths(service).socket, constants.R_OK | constants.W_OK);
    return service;
  } catch {
    return own;
  }
}

function noArgs(name: string, rest: string[]): void {
  if (rest.length > 0) throw new HomedError("usage", `${name}: unexpected argument "${rest[0]}"`);
}

export const runDaemon: Subcommand = {
  name: "",
  summary: "run the daemon",
  flags: [DATA_FLAG, LISTEN_FLAG, { name: "version", kind: "bool", usage: "print the version and exit" }],
  async run(values) {
    sizeHeap();
    const overrides: Record<string, unknown> = {};
    if (typeof values.listen === "string") overrides.listen = values.listen;
    // Loaded here, not at the top: a plugin process (`homed plugin NAME`) must not load the
    // kernel's modules (jieba's addon among them).
    const { Kernel } = await import("../kernel/kernel.ts");
    const kernel = await Kernel.start({ dataDir: resolveDataDir(values), overrides });
    // Measured from what the kernel holds once loaded, so loading is not taken for a burst.
    const limits = kernel.log.with({ component: "limits" });
    void kernel.settled.then(() => startIdleTrim((r) => limits.info("memory given back after a burst", { ...r })));
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        void kernel.stop(signal).then(resolve);
      };
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
      // Re-read the configuration; the log says what was applied and what needs a restart.
      process.on("SIGHUP", () => kernel.reload("SIGHUP"));
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
      throw new HomedError("config", `${paths.config} already exists; use -force to overwrite it`, {
        file: paths.config,
      });
    }
    // The installed external plugins' [plugins.<name>] sections are written too.
    writeFileSync(paths.config, configTemplate(settingsSections(join(paths.dir, "plugins"))), { mode: 0o600 });
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
    const paths = dataPaths(resolveRunningDataDir(values));
    const st = await callDaemon(paths.socket, ControlMethod.Status, {}, StatusResult).catch((err: unknown) => {
      // Not running here, while the system service runs (and this user may not reach it): say where.
      const service = dataPaths(serviceDataDir());
      if (
        err instanceof HomedError &&
        err.code === "not_running" &&
        paths.dir !== service.dir &&
        existsSync(service.socket)
      )
        throw new HomedError(
          "not_running",
          `${err.message}; the system service runs on ${service.dir}: sudo homed status`,
          err.data,
        );
      throw err;
    });
    process.stdout.write(values.json ? `${JSON.stringify(st)}\n` : `${formatStatus(st)}\n`);
    return 0;
  },
};

export const reload: Subcommand = {
  name: "reload",
  summary: "make the running daemon re-read config.toml and settings.json (as SIGHUP does) and say what changed",
  flags: [DATA_FLAG, JSON_FLAG],
  async run(values, rest) {
    noArgs("reload", rest);
    const paths = dataPaths(resolveRunningDataDir(values));
    const r = await callDaemon(paths.socket, ControlMethod.ConfigReload, {}, ReloadResult);
    if (values.json) process.stdout.write(`${JSON.stringify(r)}\n`);
    else if (r.error) process.stderr.write(`homed: the configuration was not reloaded: ${r.error}\n`);
    else
      process.stdout.write(
        `reloaded: ${r.applied.length ? `${r.applied.join(", ")} in force now` : "nothing changed that applies now"}${r.restartNeeded.length ? `; needs a restart: ${r.restartNeeded.join(", ")}` : ""}\n`,
      );
    return r.error ? 1 : 0;
  },
};

export const open: Subcommand = {
  name: "open",
  summary: "print a link that logs a browser into the web UI once (and open it where there is a desktop)",
  flags: [DATA_FLAG, { name: "print", kind: "bool", usage: "only print the link, open no browser" }],
  async run(values, rest) {
    noArgs("open", rest);
    const paths = dataPaths(resolveRunningDataDir(values));
    const r = await callDaemon(paths.socket, ControlMethod.LoginUrl, {}, LoginUrlResult);
    process.stdout.write(`${r.url}\n`);
    // A desktop session opens it in the person's browser; over ssh the printed link is the way.
    const opener = Bun.which("xdg-open");
    if (values.print !== true && opener && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY))
      Bun.spawn([opener, r.url], { stdio: ["ignore", "ignore", "ignore"] }).unref();
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
  // `homed plugin-restart web -data DIR` reads as naturally as the flags first.
  flagsAnywhere: true,
  async run(values, rest) {
    const name = rest[0];
    if (!name || rest.length > 1) throw new HomedError("usage", "plugin-restart takes one plugin name");
    const paths = dataPaths(resolveRunningDataDir(values));
    const info = await callDaemon(paths.socket, ControlMethod.PluginRestart, { name }, PluginInfo);
    process.stdout.write(values.json ? `${JSON.stringify(info)}\n` : `${formatPlugin(info)}\n`);
    return 0;
  },
};

const CONV_FLAG: FlagSpec = {
  name: "conv",
  kind: "string",
  arg: "ID",
  usage: "conversation to continue (default cli)",
};

export const chat: Subcommand = {
  name: "chat",
  summary:
    "send a message (from the arguments or stdin) and stream the answer; with neither, at a terminal, talk interactively",
  flags: [DATA_FLAG, CONV_FLAG, JSON_FLAG],
  flagsAnywhere: true,
  async run(values, rest) {
    const { runChat } = await import("./chat-command.ts");
    return await runChat(dataPaths(resolveRunningDataDir(values)), values, rest);
  },
};

const PROVIDER_FLAGS: FlagSpec[] = [
  DATA_FLAG,
  { name: "kind", kind: "string", arg: "KIND", usage: "openai (any OpenAI-compatible API) or anthropic" },
  { name: "base-url", kind: "string", arg: "URL", usage: "API base URL (default: the provider's official one)" },
  { name: "model", kind: "string", arg: "NAME", usage: "model name, e.g. gpt-4o-mini, claude-sonnet-4-5, qwen2.5:7b" },
  { name: "context-window", kind: "string", arg: "N", usage: "the model's context window in tokens" },
  { name: "key-stdin", kind: "bool", usage: "read the API key from the first line of stdin" },
  { name: "test", kind: "bool", usage: "send the model a one-line test prompt and report" },
  JSON_FLAG,
];

/** What `homed provider` prints: each setting, its value and where the value came from. */
export function formatProvider(p: LlmSettingsView): string {
  const hint = "no model provider configured (homed provider -kind openai -model NAME -key-stdin)";
  if (!p.provider) return hint;
  const from = (f: LlmSettingField) => {
    const src = p.sources?.[f] ?? (p.source === "runtime" ? "llm.json" : "config.toml");
    const shadow = p.shadowed?.[f];
    return shadow === undefined ? src : `${src} (overrides config.toml's ${shadow})`;
  };
  const rows: [string, string, string][] = [
    ["provider", p.provider, from("provider")],
    ["base URL", p.baseURL, from("baseURL")],
    ["model", p.model || "(none)", from("model")],
    ["context window", `${p.contextWindow} tokens`, from("contextWindow")],
    ["max output", `${p.maxOutputTokens} tokens`, from("maxOutputTokens")],
    ["API key", p.hasKey ? p.keyHint : "none", "secrets.json"],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length)) + 2;
  const w1 = Math.max(...rows.map((r) => r[1].length)) + 2;
  const table = rows.map(([k, val, src]) => `${k.padEnd(w0)}${val.padEnd(w1)}${src}`.trimEnd()).join("\n");
  return p.configured ? table : `${hint}\n${table}`;
}

/** The flag behind each field of LlmSetParams. */
const PROVIDER_FLAG_OF: Record<string, string> = {
  provider: "kind",
  model: "model",
  baseURL: "base-url",
  contextWindow: "context-window",
};

function badProviderFlag(issue: v.BaseIssue<unknown>, values: Record<string, string | boolean>): HomedError {
  const flag = PROVIDER_FLAG_OF[v.getDotPath(issue) ?? ""];
  if (!flag) return new HomedError("usage", issue.message);
  return new HomedError("usage", `-${flag} ${JSON.stringify(values[flag])}: ${issue.message}`, { flag });
}

export const provider: Subcommand = {
  name: "provider",
  summary:
    "show the model provider and where each setting comes from, or change the settings given (the key is read from stdin)",
  flags: PROVIDER_FLAGS,
  async run(values, rest) {
    noArgs("provider", rest);
    const paths = dataPaths(resolveDataDir(values));
    let view: LlmSettingsView;
    const given = (flag: string) => typeof values[flag] === "string";
    if (["kind", "model", "base-url", "context-window"].some(given) || values["key-stdin"] === true) {
      // Only what was given changes: the daemon keeps every other setting (and the key) as it is.
      const cwText = values["context-window"];
      const cw = typeof cwText === "string" ? Number(cwText) : undefined;
      if (cw !== undefined && (cwText === "" || !Number.isInteger(cw)))
        throw new HomedError("usage", `-context-window ${JSON.stringify(cwText)}: must be a whole number`, {
          flag: "context-window",
        });
      const str = (flag: string) => (typeof values[flag] === "string" ? (values[flag] as string) : undefined);
      const settings = {
        provider: str("kind"),
        model: str("model"),
        baseURL: str("base-url"),
        contextWindow: cw,
      };
      // The daemon checks these too; checked here they are a bad flag (exit 2), named as the person typed it.
      const checked = v.safeParse(v.omit(LlmSetParams, ["apiKey"]), settings);
      if (!checked.success) throw badProviderFlag(checked.issues[0], values);
      let apiKey: string | undefined;
      if (values["key-stdin"]) apiKey = ((await stdinLines()()) ?? "").trim();
      const params = { ...checked.output, apiKey };
      if (values.test) {
        // Tested before they stay: a failed test keeps the settings that were there.
        const r = await callDaemon(paths.socket, ControlMethod.LlmSetTested, params, LlmSetTestedResult, {
          timeoutMs: 60_000,
        });
        process.stdout.write(values.json ? `${JSON.stringify(r.view)}\n` : `${formatProvider(r.view)}\n`);
        const t = r.test;
        process.stdout.write(
          `${t.ok ? "ok" : "failed"}: ${t.message} (${t.latencyMs} ms)${r.kept ? "" : "; the earlier settings are kept"}\n`,
        );
        return t.ok ? 0 : 1;
      }
      view = await callDaemon(paths.socket, ControlMethod.LlmSet, params, LlmSettingsView);
    } else {
      view = await callDaemon(paths.socket, ControlMethod.LlmGet, {}, LlmSettingsView);
    }
    process.stdout.write(values.json ? `${JSON.stringify(view)}\n` : `${formatProvider(view)}\n`);
    if (values.test) {
      const t = await callDaemon(paths.socket, ControlMethod.LlmTest, {}, LlmTestResult, { timeoutMs: 60_000 });
      process.stdout.write(`${t.ok ? "ok" : "failed"}: ${t.message} (${t.latencyMs} ms)\n`);
      return t.ok ? 0 : 1;
    }
    return 0;
  },
};

export const recall: Subcommand = {
  name: "recall",
  summary: "offline recall over JSON lines on stdin (evaluation, bulk import); the daemon must be stopped",
  flags: [DATA_FLAG, { name: "stdio", kind: "bool", usage: "read ops from stdin, answer queries on stdout" }],
  async run(values, rest) {
    noArgs("recall", rest);
    if (values.stdio !== true) throw new HomedError("usage", "recall needs -stdio");
    // Loaded on demand: jieba's native addon should not be in every homed process.
    const { runRecall } = await import("./recall.ts");
    return await runRecall(resolveDataDir(values));
  },
};

const IMPORT_FORMATS_TEXT = "chatgpt, claude, jsonl or homed";

export const importHistory: Subcommand = {
  name: "import",
  summary:
    "bring in past chats: a ChatGPT or Claude export's conversations.json, homed's own JSON export of a conversation, or JSON lines {conv, role|speaker, text, time, mark?}",
  flags: [
    DATA_FLAG,
    {
      name: "format",
      kind: "string",
      arg: "F",
      usage: `the file's format: ${IMPORT_FORMATS_TEXT} (default: told by its content)`,
    },
    JSON_FLAG,
  ],
  flagsAnywhere: true,
  async run(values, rest) {
    const file = rest[0];
    if (!file || rest.length > 1) throw new HomedError("usage", "import takes one file");
    const format = values.format;
    if (format !== undefined && format !== "chatgpt" && format !== "claude" && format !== "jsonl" && format !== "homed")
      throw new HomedError("usage", `-format ${JSON.stringify(format)}: must be ${IMPORT_FORMATS_TEXT}`, {
        flag: "format",
      });
    // Loaded on demand, like recall: the readers and (offline) memory are not every command's.
    const { runImport } = await import("./import.ts");
    return await runImport(dataPaths(resolveDataDir(values)), file, { format, json: values.json === true });
  },
};

export const models: Subcommand = {
  name: "models",
  summary:
    "dense embedding models in DATA/models: list, check NAME TEXT…, check-image|check-audio NAME FILE…, pull NAME",
  flags: [
    DATA_FLAG,
    JSON_FLAG,
    {
      name: "endpoint",
      kind: "string",
      arg: "URL",
      usage: "Hugging Face hub or mirror for models pull (default $HF_ENDPOINT or https://huggingface.co)",
    },
  ],
  async run(values, rest) {
    // Loaded on demand: onnxruntime is large and only this command and memory need it.
    const { runModels } = await import("./models.ts");
    return await runModels(
      resolveDataDir(values),
      rest,
      values.json === true,
      typeof values.endpoint === "string" ? values.endpoint : undefined,
    );
  },
};

export const tools: Subcommand = {
  name: "tools",
  summary: "tools list: every built-in tool with its plugin and risk class",
  flags: [JSON_FLAG],
  flagsAnywhere: true,
  async run(values, rest) {
    if (rest[0] !== "list" || rest.length > 1) throw new HomedError("usage", "tools takes one command: list");
    const { builtinTools, formatTools } = await import("./tools-list.ts");
    const list = builtinTools();
    console.log(values.json ? JSON.stringify(list, null, 2) : formatTools(list));
    return 0;
  },
};

export const skills: Subcommand = {
  name: "skills",
  summary:
    "Agent Skills of the data dir: list, add DIR|GIT-URL (shows what it copies, asks), remove, enable, disable, trust, untrust NAME",
  flags: [DATA_FLAG, JSON_FLAG, { name: "yes", kind: "bool", usage: "skills add: add without asking" }],
  flagsAnywhere: true,
  async run(values, rest) {
    const { runSkills } = await import("./skills.ts");
    return await runSkills(dataPaths(resolveDataDir(values)), rest, {
      json: values.json === true,
      yes: values.yes === true,
    });
  },
};

export const acp: Subcommand = {
  name: "acp",
  summary: "speak the Agent Client Protocol on stdin/stdout for an editor (Zed…), bridged to the running daemon",
  flags: [DATA_FLAG],
  async run(values, rest) {
    noArgs("acp", rest);
    const { runAcp } = await import("./acp.ts");
    return await runAcp(resolveDataDir(values));
  },
};

/**
 * `homed plugin new NAME [-dir DIR]` writes a new plugin's folder (plugin-new.ts); `plugin add
 * DIR` copies one into the data dir after showing what it asks for, `plugin remove NAME` takes
 * it out (plugin-add.ts). Internal: `homed plugin NAME` runs a built-in plugin (the kernel
 * starts these; a person never needs to). The commands are no plugin's name
 * (src/protocol/manifest.ts refuses them), so the two never meet.
 */
export const plugin: Subcommand = {
  name: "plugin",
  summary:
    "new NAME writes a working plugin (a tool, a stage handler, a test) into DATA/plugins/NAME, or -dir DIR; add DIR installs one after showing what it asks for; remove NAME; homed loads them at its next start",
  flags: [
    DATA_FLAG,
    { name: "dir", kind: "string", arg: "DIR", usage: "plugin new: the folder to write" },
    { name: "yes", kind: "bool", usage: "plugin add: add without asking, allowing what it asks for" },
  ],
  flagsAnywhere: true,
  async run(values, rest) {
    if (rest[0] === "new") {
      if (rest.length !== 2) throw new HomedError("usage", "plugin new takes one NAME (e.g. homed plugin new demo)");
      const name = rest[1] ?? "";
      const paths = dataPaths(resolveDataDir(values));
      const pluginsDir = join(paths.dir, "plugins");
      const own = typeof values.dir !== "string" || values.dir === "";
      // Into the data dir: made as the daemon makes it (0700, refused if another user's).
      if (own) ensureDataDir(paths);
      const dir = own ? join(pluginsDir, name) : (values.dir as string);
      const { newPlugin } = await import("./plugin-new.ts");
      process.stdout.write(await newPlugin(name, dir, pluginsDir));
      return 0;
    }
    if (rest[0] === "add" || rest[0] === "remove") {
      const what = rest[0] === "add" ? "one plugin folder (e.g. homed plugin add ./jot)" : "one plugin NAME";
      if (rest.length !== 2) throw new HomedError("usage", `plugin ${rest[0]} takes ${what}`);
      const paths = dataPaths(resolveDataDir(values));
      const { addPlugin, removePlugin } = await import("./plugin-add.ts");
      if (rest[0] === "add") return await addPlugin(paths, rest[1] as string, values.yes === true);
      return removePlugin(paths, rest[1] as string);
    }
    const name = rest[0] ?? "";
    const entry = BUILTIN_ENTRIES[name];
    if (!entry || rest.length > 1 || values.dir !== undefined)
      throw new HomedError(
        "usage",
        `plugin takes new NAME, add DIR or remove NAME, or (the daemon's own use) one of: ${Object.keys(BUILTIN_ENTRIES).join(", ")}`,
      );
    if (!process.env.HOMED_PLUGIN_NAME)
      throw new HomedError("usage", `plugins are started by the homed daemon, not by hand`);
    await entry();
    // The plugin keeps the process alive through its own handles (stdin, servers).
    return await new Promise<number>(() => {});
  },
};

export const backup: Subcommand = {
  name: "backup",
  summary:
    "copy the whole data folder to DEST (a new or empty folder) while the daemon runs, and check the copy; secrets, logs and models only when asked",
  args: "DEST",
  flags: [
    DATA_FLAG,
    {
      name: "secrets",
      kind: "bool",
      usage: "backup: take secrets.json (API keys), web-token and the browser profile too",
    },
    { name: "models", kind: "bool", usage: "backup: take DATA/models (embedding models) too" },
    { name: "logs", kind: "bool", usage: "backup: take DATA/logs too" },
    JSON_FLAG,
  ],
  flagsAnywhere: true,
  async run(values, rest) {
    const dest = rest[0];
    if (!dest || rest.length > 1) throw new HomedError("usage", "backup takes one destination folder");
    const { runBackup } = await import("./backup.ts");
    return await runBackup(resolveDataDir(values), dest, {
      secrets: values.secrets === true,
      models: values.models === true,
      logs: values.logs === true,
      json: values.json === true,
    });
  },
};

export const restore: Subcommand = {
  name: "restore",
  summary: "check a backup, then copy it into the data folder, which must be empty (-check: only check it)",
  args: "SRC",
  flags: [
    DATA_FLAG,
    { name: "check", kind: "bool", usage: "restore: only check the backup, write nothing" },
    JSON_FLAG,
  ],
  flagsAnywhere: true,
  async run(values, rest) {
    const src = rest[0];
    if (!src || rest.length > 1) throw new HomedError("usage", "restore takes one backup folder");
    const { runRestore } = await import("./backup.ts");
    return await runRestore(resolveDataDir(values), src, { check: values.check === true, json: values.json === true });
  },
};

export const SUBCOMMANDS: readonly Subcommand[] = [
  initconfig,
  status,
  reload,
  open,
  chat,
  acp,
  provider,
  importHistory,
  backup,
  restore,
  recall,
  models,
  tools,
  skills,
  pluginRestart,
  version,
  plugin,
];

export function usage(): string {
  const visible = SUBCOMMANDS;
  const synopsis = (c: Subcommand) => c.flags.map((f) => `[-${f.name}${f.arg ? ` ${f.arg}` : ""}]`).join(" ");
  const flags = new Map<string, FlagSpec>();
  for (const c of [runDaemon, ...visible]) for (const f of c.flags) if (!flags.has(f.name)) flags.set(f.name, f);
  const lines = [
    "homed — a self-hosted agent kernel",
    "",
    "Usage:",
    `  homed ${synopsis(runDaemon)}`,
    `      ${runDaemon.summary}`,
    ...visible.flatMap((c) => [
      `  homed ${c.name}${c.flags.length ? ` ${synopsis(c)}` : ""}${c.args ? ` ${c.args}` : c === chat ? ' ["message"]' : c === pluginRestart ? " NAME" : c === importHistory ? " FILE" : c === plugin ? " new|add|remove NAME|DIR" : c === skills ? " COMMAND [NAME|DIR|GIT-URL]" : ""}`,
      `      ${c.summary}`,
    ]),
    "",
    "Flags:",
    formatFlags([...flags.values()]),
    "",
    "Flags take one or two dashes: -data and --data are the same.",
  ];
  return `${lines.join("\n")}\n`;
}
