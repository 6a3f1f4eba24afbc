/**
 * DATA/settings.json: what the web UI changed of config.toml's [agent] system_prompt, [approval]
 * default/allow/ask/deny, [memory] recall_untrusted, and [tools.fetch] and [tools.browser]
 * allow_hosts (one list for both). One precedence, field by field:
 * settings.json, else config.toml (with its HOMED_* and flag overrides), else the default — as
 * llm.json does for [llm]. The file holds only the fields the UI set; the result is checked with
 * config.toml's own schema, so a bad value is refused with the message config.toml would get.
 */
import * as v from "valibot";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";
import { SettingsPatch, type SettingsField, type SettingsView } from "../protocol/settings.ts";
import { ConfigSchema, type Config } from "./config.ts";
import type { Logger } from "./log.ts";

const DEFAULTS = v.parse(ConfigSchema, {});

/** Where each field of a patch lives in config.toml: its dotted paths. */
const FIELD_PATHS: Record<Exclude<SettingsField, "mcp_add" | "mcp_remove">, string[]> = {
  system_prompt: ["agent.system_prompt"],
  approval_default: ["approval.default"],
  approval_allow: ["approval.allow"],
  approval_ask: ["approval.ask"],
  approval_deny: ["approval.deny"],
  recall_untrusted: ["memory.recall_untrusted"],
  allow_hosts: ["tools.fetch.allow_hosts", "tools.browser.allow_hosts"],
  mcp_servers: ["mcp.servers"],
};

/** Fields settings.json keeps; mcp_add and mcp_remove are requests the kernel turns into mcp_servers. */
type StoredField = Exclude<SettingsField, "mcp_add" | "mcp_remove">;
const FIELDS = Object.keys(FIELD_PATHS) as StoredField[];

/** The field's values in `config`, one per path. */
function valuesAt(config: Config, field: StoredField): unknown[] {
  return FIELD_PATHS[field].map((path) =>
    path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], config),
  );
}

/** Set the dotted `path` of a raw configuration (every section on it exists: the schema's defaults made them). */
function setAt(raw: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  const at = keys.reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, raw);
  at[last] = value;
}

export function settingsFile(dataDir: string): string {
  return join(dataDir, "settings.json");
}

/** The patch in DATA/settings.json; a missing file is none, a malformed one is ignored (and said). */
export function readSettingsPatch(dataDir: string, log: Logger): SettingsPatch {
  const file = settingsFile(dataDir);
  if (!existsSync(file)) return {};
  try {
    const r = v.safeParse(SettingsPatch, JSON.parse(readFileSync(file, "utf8")));
    if (r.success) return r.output;
    log.warn("settings.json ignored", { reason: describeIssues(r.issues) });
  } catch (err) {
    log.warn("settings.json ignored", { err: (err as Error).message });
  }
  return {};
}

/** config.toml's configuration with the patch over it, checked as config.toml is. */
export function applySettingsPatch(base: Config, patch: SettingsPatch): Config {
  const raw = structuredClone(base) as unknown as Record<string, unknown>;
  for (const field of FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    for (const path of FIELD_PATHS[field]) setAt(raw, path, value);
  }
  const r = v.safeParse(ConfigSchema, raw);
  if (!r.success) throw new HomedError("invalid_params", describeIssues(r.issues));
  return r.output;
}

/**
 * Turn mcp_add / mcp_remove into the whole list (mcp_servers), from the servers in force now.
 * A name already taken, or one that is not there, is refused.
 */
export function resolveMcpEdits(patch: SettingsPatch, current: Config): SettingsPatch {
  const { mcp_add, mcp_remove, ...rest } = patch;
  if (!mcp_add && mcp_remove === undefined) return rest;
  let list: Record<string, unknown>[] = (rest.mcp_servers ?? current.mcp.servers).map((s) => ({ ...s }));
  if (mcp_remove !== undefined) {
    if (!list.some((s) => s.name === mcp_remove))
      throw new HomedError("not_found", `no MCP server named ${mcp_remove}`);
    list = list.filter((s) => s.name !== mcp_remove);
  }
  if (mcp_add) {
    if (list.some((s) => s.name === mcp_add.name))
      throw new HomedError("invalid_params", `an MCP server named ${mcp_add.name} exists already`);
    list.push(Object.fromEntries(Object.entries(mcp_add).filter(([, v]) => v !== undefined && v !== "")));
  }
  return { ...rest, mcp_servers: list };
}

/** Merge `patch` into settings.json (0600, atomically); the caller has checked it with applySettingsPatch. */
export function writeSettingsPatch(dataDir: string, current: SettingsPatch, patch: SettingsPatch): SettingsPatch {
  const next: SettingsPatch = { ...current, ...patch };
  const file = settingsFile(dataDir);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return next;
}

/** The effective values and where each came from. */
export function settingsView(base: Config, effective: Config, patch: SettingsPatch): SettingsView {
  const sources: SettingsView["sources"] = {};
  for (const field of FIELDS) {
    if (patch[field] !== undefined) sources[field] = "settings.json";
    else
      sources[field] =
        JSON.stringify(valuesAt(base, field)) === JSON.stringify(valuesAt(DEFAULTS, field)) ? "default" : "config.toml";
  }
  return {
    system_prompt: effective.agent.system_prompt,
    approval_default: effective.approval.default,
    approval_allow: effective.approval.allow,
    approval_ask: effective.approval.ask,
    approval_deny: effective.approval.deny,
    recall_untrusted: effective.memory.recall_untrusted,
    // One list on the page: config.toml may give the two tools different ones.
    allow_hosts: [...new Set([...effective.tools.fetch.allow_hosts, ...effective.tools.browser.allow_hosts])],
    sources,
    mcp_servers: effective.mcp.servers.map((s) => ({
      name: s.name,
      transport: s.url ? ("http" as const) : ("stdio" as const),
      target: s.url || [s.command, ...s.args].join(" "),
    })),
  };
}

/** Dotted paths of every leaf that differs between two configurations. */
export function changedPaths(a: Config, b: Config): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, path: string) => {
    const isObj = (o: unknown) => typeof o === "object" && o !== null && !Array.isArray(o);
    if (isObj(x) && isObj(y)) {
      const keys = new Set([...Object.keys(x as object), ...Object.keys(y as object)]);
      for (const k of keys)
        walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    } else if (JSON.stringify(x) !== JSON.stringify(y)) out.push(path);
  };
  walk(a, b, "");
  return out;
}
