/**
 * The kernel names no plugin: what it needs of one (a listen address, a login, a field's value,
 * a core tool, a channel whose image tags are believed) comes from a declaration — the manifest,
 * a settings field marked with kernelReads, a tool definition — never from a built-in plugin's
 * name or one of its settings fields. This scans the code (not the comments) of src/, outside
 * src/generated, for string literals that are a built-in plugin's name or config section (or a
 * path inside one), and for names a built-in section's fields have that the kernel's own
 * configuration does not (those with an underscore: max_read_kb, allowed_hosts; a bare "mode"
 * or "enabled" is every section's).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "../harness/binary.ts";
import { BUILTIN_PLUGINS } from "../../src/generated/builtin-plugins.ts";
import { BUILTIN_SETTINGS } from "../../src/generated/builtin-settings.ts";
import { KernelConfigSchema } from "../../src/kernel/config/config.ts";

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (relative(ROOT, p) !== "src/generated") out.push(...sources(p));
    } else if (name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** The code of a TypeScript file: comments blanked, strings and templates kept. */
export function codeOf(source: string): string {
  let out = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
      out += " ";
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === "\\" ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Every string literal's text (a template's whole text, ${…} included). */
export function literalsOf(code: string): string[] {
  return [...code.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)].map(
    (m) => (m[1] ?? m[2] ?? m[3]) as string,
  );
}

/** The kernel's own configuration's field names, at every depth. */
function kernelFields(schema: unknown, out = new Set<string>()): Set<string> {
  const node = schema as { entries?: Record<string, unknown>; wrapped?: unknown; pipe?: unknown[] };
  if (node.wrapped) kernelFields(node.wrapped, out);
  if (node.pipe?.[0] && node.pipe[0] !== node) kernelFields(node.pipe[0], out);
  for (const [k, entry] of Object.entries(node.entries ?? {})) {
    out.add(k);
    kernelFields(entry, out);
  }
  return out;
}

const plugins = new Set(BUILTIN_PLUGINS.map((m) => m.name));
const sections = BUILTIN_SETTINGS.map((s) => s.section);
const ownFields = kernelFields(KernelConfigSchema);
const pluginFields = new Set(
  BUILTIN_SETTINGS.flatMap((s) => Object.keys(s.settings.schema.entries)).filter(
    (f) => f.includes("_") && !ownFields.has(f),
  ),
);

/**
 * Literals that are a plugin's name by coincidence, each with its reason. Keep this short: a
 * new entry needs a reason a reviewer accepts.
 */
const COINCIDENCES: Record<string, string[]> = {
  // A web browser as the kind of client that sends a message, kept in scene keys already stored.
  "src/protocol/web.ts": ["browser"],
  // A `-browser` flag of the desktop launcher (a browser program to open), not the browser plugin.
  "src/client/desktop-env.ts": ["browser"],
  "src/client/waiter-usage.ts": ["browser"],
  // A skill candidate's list of files (a property), not the files plugin.
  "src/skills/skill-install.ts": ["files"],
  // A system error's `code` property, not the code plugin.
  "src/llm/http.ts": ["code"],
  // ACP's own tool kind "fetch" (agent-client-protocol ToolKind), not the fetch plugin.
  "src/cli/acp-updates.ts": ["fetch"],
};

/** What of `code` names a built-in plugin or one of its fields. */
function namesIn(file: string, code: string): string[] {
  const found: string[] = [];
  const allowed = COINCIDENCES[file] ?? [];
  for (const lit of literalsOf(code)) {
    if (allowed.includes(lit)) continue;
    if (plugins.has(lit)) found.push(`plugin "${lit}"`);
    for (const s of sections) if (lit === s || lit.startsWith(`${s}.`)) found.push(`section path "${lit}"`);
  }
  for (const m of code.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g))
    if (pluginFields.has(m[0])) found.push(`field ${m[0]}`);
  return found;
}

describe("the kernel names no plugin", () => {
  test("the scanner reads code, not comments, and sees literals of every quote", () => {
    const code = codeOf(
      `// the web plugin\nconst a = "files"; /* max_read_kb */ const b = \`tools.files.x\`; x.max_read_kb;`,
    );
    expect(code).not.toContain("the web plugin");
    expect(literalsOf(code)).toEqual(["files", "tools.files.x"]);
    expect(namesIn("src/x.ts", code)).toEqual(['plugin "files"', 'section path "tools.files.x"', "field max_read_kb"]);
  });

  test("no file of src/ outside src/generated names a built-in plugin, its section or one of its fields", () => {
    const found: string[] = [];
    for (const f of sources(join(ROOT, "src"))) {
      const file = relative(ROOT, f);
      for (const what of namesIn(file, codeOf(readFileSync(f, "utf8")))) found.push(`${file}: ${what}`);
    }
    expect(found).toEqual([]);
  });
});
