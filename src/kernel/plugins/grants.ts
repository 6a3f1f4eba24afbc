/**
 * DATA/plugins.json: what the owner allowed the external plugins of DATA/plugins, kept beside
 * them and out of their reach (a plugin's sandbox never holds the data dir): which one was
 * added by `homed plugin add` from where, and whether it may use the network its manifest asks
 * for. A folder dropped into DATA/plugins by hand has no entry, so it runs with the network off.
 * Written whole to a temporary file and renamed; a file that does not parse is reported and read
 * as empty (no plugin gets the network), and it is not overwritten until it is fixed.
 */
import * as v from "valibot";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../../protocol/errors.ts";
import { describeIssues } from "../../protocol/jsonrpc.ts";

export const PLUGIN_GRANTS_FILE = "plugins.json";

const Added = v.object({
  /** The folder it was copied from. */
  from: v.string(),
  /** When (ISO 8601). */
  at: v.string(),
  /** The owner allowed the network its manifest asked for. */
  network: v.boolean(),
});

const GrantsFile = v.object({ added: v.optional(v.record(v.string(), Added), {}) });
export type PluginGrants = v.InferOutput<typeof GrantsFile>;

export function grantsFile(dataDir: string): string {
  return join(dataDir, PLUGIN_GRANTS_FILE);
}

/** The grants, and why the file was not readable (null when it was, or is absent). */
export function readGrants(dataDir: string): { grants: PluginGrants; problem: string | null } {
  const file = grantsFile(dataDir);
  if (!existsSync(file)) return { grants: { added: {} }, problem: null };
  try {
    const r = v.safeParse(GrantsFile, JSON.parse(readFileSync(file, "utf8")));
    if (r.success) return { grants: r.output, problem: null };
    return { grants: { added: {} }, problem: `${file}: ${describeIssues(r.issues)}` };
  } catch (err) {
    return { grants: { added: {} }, problem: `${file}: ${(err as Error).message}` };
  }
}

/** Change the grants with `edit` and write them (refused while the file on disk does not parse). */
export function updateGrants(dataDir: string, edit: (g: PluginGrants) => void): PluginGrants {
  const { grants, problem } = readGrants(dataDir);
  if (problem) throw new HomedError("config", `${problem}; fix or remove it first`, { file: grantsFile(dataDir) });
  const next = structuredClone(grants);
  edit(next);
  const file = grantsFile(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return next;
}
