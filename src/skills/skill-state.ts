/**
 * DATA/skills.json: what the owner decided about skills, kept beside them and never in their
 * SKILL.md (a skill's files are its author's): which are disabled, and which were installed by
 * `homed skills add` from where — those carry the untrusted mark until the owner trusts them.
 * Written whole to a temporary file and renamed, so the daemon and a `homed skills` command
 * never read half a file. A file that does not parse is reported and read as empty, except that
 * every skill of DATA/skills is then treated as untrusted (src/skills/skill-catalog.ts), and it
 * is not overwritten until it is fixed.
 */
import * as v from "valibot";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import { describeIssues } from "../protocol/jsonrpc.ts";

export const SKILL_STATE_FILE = "skills.json";

const Installed = v.object({
  /** The folder or git URL it was copied from. */
  from: v.string(),
  /** When (ISO 8601). */
  at: v.string(),
  trusted: v.boolean(),
});

const StateFile = v.object({
  disabled: v.optional(v.array(v.string()), []),
  installed: v.optional(v.record(v.string(), Installed), {}),
});
export type SkillState = v.InferOutput<typeof StateFile>;

export class SkillStateFile {
  readonly path: string;
  /** The last read, by the file's mtime and size: the daemon asks on every turn. */
  private cached: { stamp: string; state: SkillState; problem: string | null } | null = null;

  constructor(dataDir: string) {
    this.path = join(dataDir, SKILL_STATE_FILE);
  }

  /** The file's stamp ("" when absent): it changes when the file does. */
  stamp(): string {
    try {
      const st = statSync(this.path);
      return `${st.mtimeMs}:${st.size}`;
    } catch {
      return "";
    }
  }

  /** The state, and why the file was not readable (null when it was, or is absent). */
  read(): { state: SkillState; problem: string | null } {
    const stamp = this.stamp();
    if (this.cached?.stamp === stamp) return this.cached;
    let state: SkillState = { disabled: [], installed: {} };
    let problem: string | null = null;
    if (stamp !== "") {
      try {
        const r = v.safeParse(StateFile, JSON.parse(readFileSync(this.path, "utf8")));
        if (r.success) state = r.output;
        else problem = `${this.path}: ${describeIssues(r.issues)}`;
      } catch (err) {
        problem = `${this.path}: ${(err as Error).message}`;
      }
    }
    this.cached = { stamp, state, problem };
    return this.cached;
  }

  /** Change the state with `edit` and write it (refused when the file on disk does not parse: it is not overwritten). */
  update(edit: (s: SkillState) => void): SkillState {
    const { state, problem } = this.read();
    if (problem) throw new HomedError("config", `${problem}; fix or remove it first`, { file: this.path });
    const next = structuredClone(state);
    edit(next);
    next.disabled = [...new Set(next.disabled)].sort();
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    return next;
  }
}
