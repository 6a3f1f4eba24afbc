/**
 * config.toml: parsed with Bun's TOML parser, then checked with valibot. Every field has a
 * default, so an empty or missing file is a valid configuration. Precedence, lowest first:
 * defaults < DATA/config.toml < HOMED_* environment < command-line flags.
 *
 * The kernel's own sections are below; each plugin's section (a tool's [tools.<name>], a
 * channel's [channels.<name>], an external plugin's [plugins.<name>]) comes from the plugin's
 * settings and is put in its place by configSchema (config-sections.ts lists them).
 *
 * A bad value is a HomedError("config") naming the field and the reason; the command line
 * maps it to exit status 78 (EX_CONFIG), which the supervisor never restarts.
 */
import * as v from "valibot";

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describeIssues } from "../../protocol/jsonrpc.ts";
import { wholeNumber } from "../../protocol/plugin-settings.ts";
import { HomedError } from "../../protocol/errors.ts";
import { LOG_LEVELS } from "../../protocol/logfmt.ts";
import { parseListen } from "../../shared/listen.ts";
import { RISK_CLASSES } from "../../protocol/agent.ts";
import { type ApprovalConfig, isPolicyPattern } from "../../agent/approval.ts";
import { type SettingsSection, settingsSections } from "./sections.ts";
import { ScenesConfig } from "./scenes.ts";
import { DistillConfig } from "./distill.ts";

export { CONFIG_TEMPLATE, configTemplate } from "./template.ts";

/** Tool-name globs, or risk:<class> for every tool of a class. */
const PolicyPattern = v.pipe(
  v.string("must be tool name patterns"),
  v.check(isPolicyPattern, `must be a tool name pattern or risk:<class> with a class of ${RISK_CLASSES.join(", ")}`),
);

const ListenAddress = v.pipe(
  v.string(),
  v.check(
    (s) => parseListen(s) !== null,
    "must be HOST:PORT with a port from 0 to 65535 (e.g. 127.0.0.1:8080 or [::1]:8080)",
  ),
);

/** The kernel's own sections; plugin sections are added by configSchema. */
export const KernelConfigSchema = v.strictObject({
  listen: v.optional(ListenAddress, "127.0.0.1:8080"),
  log: v.optional(
    v.strictObject({
      level: v.optional(v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`), "info"),
    }),
    {},
  ),
  llm: v.optional(
    v.strictObject({
      /** "" = none configured yet (the web UI walks the user through it). */
      provider: v.optional(v.picklist(["", "openai", "anthropic"], "must be openai, anthropic or empty"), ""),
      base_url: v.optional(
        v.pipe(
          v.string(),
          v.check((s) => s === "" || /^https?:\/\/\S+$/.test(s), "must be an http(s) URL"),
        ),
        "",
      ),
      model: v.optional(v.string(), ""),
      context_window: v.optional(wholeNumber(1024), 128_000),
      max_output_tokens: v.optional(wholeNumber(16), 4096),
      timeout_ms: v.optional(wholeNumber(100), 120_000),
      max_retries: v.optional(wholeNumber(0, 10), 3),
      images: v.optional(v.picklist(["auto", "on", "off"], "must be auto, on or off"), "auto"),
    }),
    {},
  ),
  agent: v.optional(
    v.strictObject({
      system_prompt: v.optional(
        v.string(),
        "You are homed, a personal agent running on the user's own machine. Answer plainly. Use tools when they help, and say what you did.",
      ),
      max_iterations: v.optional(wholeNumber(1, 200), 10),
      tool_timeout_ms: v.optional(wholeNumber(100), 120_000),
    }),
    {},
  ),
  memory: v.optional(
    v.strictObject({
      pinned_recent: v.optional(wholeNumber(0, 1000), 10),
      model: v.optional(
        v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]*$/, "must be a folder name under DATA/models")),
        "",
      ),
      recall_untrusted: v.optional(v.boolean("must be true or false"), false),
      scenes: v.optional(ScenesConfig, {}),
      distill: v.optional(DistillConfig, {}),
    }),
    {},
  ),
  approval: v.optional(
    v.strictObject({
      default: v.optional(v.picklist(["allow", "ask", "deny"], "must be allow, ask or deny"), "ask"),
      timeout_ms: v.optional(wholeNumber(100), 120_000),
      allow: v.optional(v.array(PolicyPattern), []),
      ask: v.optional(v.array(PolicyPattern), []),
      deny: v.optional(v.array(PolicyPattern), []),
      untrusted_deny: v.optional(v.array(PolicyPattern), []),
    }),
    {},
  ),
  /**
   * Origins the owner trusts although they are outside the person's own words: `tools` (globs or
   * risk:<class>) whose output carries no untrusted mark, e.g. ["notes_*"] for one's own notes.
   */
  trust: v.optional(v.strictObject({ tools: v.optional(v.array(PolicyPattern), []) }), {}),
  plugins: v.optional(
    v.strictObject({
      segment_mb: v.optional(wholeNumber(1, 1024), 32),
      start_timeout_ms: v.optional(wholeNumber(100, 600_000), 30_000),
      ping_interval_ms: v.optional(wholeNumber(0, 3_600_000), 10_000),
      frame_rate: v.optional(wholeNumber(10), 20_000),
      inline_bulk_kb: v.optional(wholeNumber(1, 65_536), 8192),
      disabled: v.optional(v.array(v.string("must be plugin names")), []),
      /**
       * How external plugins (DATA/plugins) run: "bwrap", each in a bubblewrap sandbox of its
       * own (src/kernel/plugins/sandbox.ts); "none", unconfined as the daemon's user.
       */
      sandbox: v.optional(v.picklist(["bwrap", "none"], 'must be "bwrap" or "none"'), "bwrap"),
    }),
    {},
  ),
  limits: v.optional(
    v.strictObject({
      /** Resident memory of the daemon and its plugins together, in MiB; 0: no cap. */
      rss_mb: v.optional(wholeNumber(0, 1_048_576), 1024),
      rss_check_ms: v.optional(wholeNumber(100, 3_600_000), 10_000),
    }),
    {},
  ),
  /** Tools' settings, one table per plugin (theirs); [tools.agent] is the kernel's agent_spawn. */
  tools: v.optional(
    v.strictObject({
      agent: v.optional(
        v.strictObject({
          max_depth: v.optional(wholeNumber(1, 5), 2),
          max_iterations: v.optional(wholeNumber(1, 50), 8),
        }),
        {},
      ),
    }),
    {},
  ),
  /**
   * Agent Skills besides DATA/skills: folders of skill folders the owner already keeps
   * (~/.claude/skills…), `~` for the home folder, relative to the data dir otherwise. Off (none)
   * by default. src/skills/skill-catalog.ts.
   */
  skills: v.optional(
    v.strictObject({
      paths: v.optional(
        v.pipe(
          v.array(v.pipe(v.string("must be folder paths"), v.minLength(1, "must not be empty"))),
          v.maxLength(50, "at most 50 folders"),
        ),
        [],
      ),
    }),
    {},
  ),
  /** Channels besides the web UI, one table each, every one a plugin's. */
  channels: v.optional(v.strictObject({}), {}),
  store: v.optional(
    v.strictObject({
      busy_timeout_ms: v.optional(wholeNumber(0, 600_000), 5000),
    }),
    {},
  ),
  /** Scheduled backups of the data folder (src/kernel/backup-schedule.ts); off until `dir` is set. */
  backup: v.optional(
    v.strictObject({
      dir: v.optional(v.string("must be a folder path"), ""),
      every_hours: v.optional(wholeNumber(1, 24 * 365), 24),
      keep: v.optional(wholeNumber(1, 1000), 7),
      secrets: v.optional(v.boolean("must be true or false"), false),
    }),
    {},
  ),
});

/**
 * A configuration: the kernel's sections typed; the plugins' sections are there too, read by
 * path through config-sections.ts (the kernel knows them only as data).
 */
export type Config = v.InferOutput<typeof KernelConfigSchema>;

type Entries = Record<string, v.GenericSchema>;

/** The table a kernel entry holds (v.optional(v.strictObject(...), {})), or null when it holds a value. */
function tableEntries(entry: v.GenericSchema): Entries | null {
  const inner = (entry as { wrapped?: { type?: string; entries?: Entries; pipe?: unknown } }).wrapped;
  return inner?.type === "strict_object" && !inner.pipe ? (inner.entries ?? null) : null;
}

/** `entries` with `schema` at the dotted `keys`, tables made on the way; a clash is a bug, said at once. */
function placeSection(entries: Entries, keys: string[], schema: v.GenericSchema, section: string): Entries {
  const [head, ...rest] = keys as [string, ...string[]];
  const existing = entries[head];
  if (rest.length === 0) {
    if (existing) throw new Error(`config section ${section} is claimed twice`);
    return { ...entries, [head]: v.optional(schema, {}) };
  }
  const inner = existing ? tableEntries(existing) : {};
  if (!inner) throw new Error(`config section ${section} would replace the setting ${head}`);
  return { ...entries, [head]: v.optional(v.strictObject(placeSection(inner, rest, schema, section)), {}) };
}

/** config.toml's schema: the kernel's sections with each plugin's put at its path. */
export function configSchema(sections: readonly SettingsSection[]) {
  let entries: Entries = { ...KernelConfigSchema.entries };
  for (const s of sections) entries = placeSection(entries, s.section.split("."), s.settings.schema, s.section);
  return v.strictObject(entries) as unknown as typeof KernelConfigSchema;
}

/** config.toml's schema with the built-in plugins' sections (external ones: configSchema). */
export const ConfigSchema = configSchema(settingsSections());

/** Dotted paths of every leaf setting, with the kind of value each holds. */
function leafKinds(schema: typeof ConfigSchema): Map<string, "string" | "number" | "list"> {
  const defaults = v.parse(schema, {});
  const out = new Map<string, "string" | "number" | "list">();
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [key, value] of Object.entries(obj)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (Array.isArray(value)) out.set(path, "list");
      else if (typeof value === "object" && value !== null) walk(value as Record<string, unknown>, path);
      else out.set(path, typeof value === "number" ? "number" : "string");
    }
  };
  walk(defaults, "");
  return out;
}

/** The environment variable that overrides a dotted setting path. */
export function envName(path: string): string {
  return `HOMED_${path.replace(/\./g, "_").toUpperCase()}`;
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let cur = obj;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) cur[key] = {};
    cur = cur[key] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1] as string] = value;
}

export interface LoadConfigOptions {
  /** Path to config.toml; a missing file means all defaults. */
  file: string;
  env?: Record<string, string | undefined>;
  /** Flag values, as dotted paths (e.g. `listen`). */
  overrides?: Record<string, unknown>;
  /** The plugins' sections; default: the built-in ones and those of DATA/plugins beside the file. */
  sections?: readonly SettingsSection[];
}

export function loadConfig(opts: LoadConfigOptions): Config {
  const schema = configSchema(opts.sections ?? settingsSections(join(dirname(opts.file), "plugins")));
  let raw: Record<string, unknown> = {};
  if (existsSync(opts.file)) {
    let text: string;
    try {
      text = readFileSync(opts.file, "utf8");
    } catch (err) {
      throw new HomedError(
        "config",
        `${opts.file}: cannot read: ${(err as Error).message}`,
        { file: opts.file },
        { cause: err },
      );
    }
    try {
      const parsed: unknown = Bun.TOML.parse(text);
      raw = parsed as Record<string, unknown>;
    } catch (err) {
      throw new HomedError(
        "config",
        `${opts.file}: not valid TOML: ${(err as Error).message}`,
        { file: opts.file },
        { cause: err },
      );
    }
  }
  const sources = new Map<string, string>();
  for (const [path, kind] of leafKinds(schema)) {
    const name = envName(path);
    const value = opts.env?.[name];
    if (value === undefined) continue;
    if (value === "" && kind !== "list") continue;
    let parsed: unknown = value;
    if (kind === "number" && /^-?\d+(\.\d+)?$/.test(value.trim())) parsed = Number(value);
    else if (kind === "list")
      parsed = value
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);
    setPath(raw, path, parsed);
    sources.set(path, name);
  }
  for (const [path, value] of Object.entries(opts.overrides ?? {})) {
    if (value === undefined) continue;
    setPath(raw, path, value);
    sources.set(path, `flag -${path}`);
  }
  const result = v.safeParse(schema, raw);
  if (!result.success) {
    const issue = result.issues[0];
    const path = issue ? (v.getDotPath(issue) ?? "") : "";
    const where = sources.get(path) ?? opts.file;
    const reason = describeIssues(
      result.issues.map((i) =>
        i.type === "strict_object" && i.expected === "never" ? { ...i, message: "unknown setting" } : i,
      ),
    );
    throw new HomedError("config", `${where}: ${reason}`, { field: path, source: where });
  }
  return result.output;
}

/** The approval policy's settings: `[approval]` with the tools whose output `[trust]` names. */
export function approvalOf(config: Pick<Config, "approval" | "trust">): ApprovalConfig {
  return { ...config.approval, trusted_output: config.trust.tools };
}
