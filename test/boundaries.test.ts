/**
 * Layers point one way. Scans every import in the tree:
 *   - plugins import only src/protocol, src/ipc and plugins/sdk (and packages); the one shared
 *     modules between plugins are the sandbox (plugins/code imports plugins/shell/sandbox.ts),
 *     fetch's guarded GET, which plugins/rss fetches feeds through, and the A2A settings the web
 *     listener serves with (plugins/a2a/config.ts);
 *   - src/protocol and src/metrics import nothing of ours;
 *   - src/memory never imports src/llm;
 *   - only src/ipc touches bun:ffi;
 *   - only src/store touches the database: no bun:sqlite, no store's `db`, no SQL run elsewhere;
 *   - src folders import only those below them, client between ipc and cli.
 *   - only the command line imports the Kernel class (no import cycle through the method tables).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "./harness/binary.ts";

function files(dir: string): string[] {
  const out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(ts|tsx|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

/** Every module specifier a file imports (static, dynamic, re-export, require). */
export function importsOf(source: string): string[] {
  const specs: string[] = [];
  const re =
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of source.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3] ?? m[4]) as string);
  return specs;
}

/** Resolved imports of our own tree, as paths relative to the repo root. */
function ownImports(file: string): { spec: string; target: string | null }[] {
  return importsOf(readFileSync(file, "utf8")).map((spec) => ({
    spec,
    target: spec.startsWith(".") ? relative(ROOT, resolve(dirname(file), spec)) : null,
  }));
}

function violations(dir: string, allowed: (target: string | null, spec: string) => boolean): string[] {
  const bad: string[] = [];
  for (const f of files(join(ROOT, dir))) {
    for (const { spec, target } of ownImports(f))
      if (!allowed(target, spec)) bad.push(`${relative(ROOT, f)} imports ${spec}`);
  }
  return bad;
}

const under = (target: string | null, ...prefixes: string[]) =>
  target !== null && prefixes.some((p) => target === p || target.startsWith(`${p}/`));

/**
 * The folder order, lowest first; a folder may import its own rank and below.
 * `src/client` ranks with ipc's users (it may import protocol and ipc, and cli may import it), and
 * so do the export readers of `src/import` (protocol and ipc only: parsing, no store).
 * `src/metrics` (counters, histograms, the text format) ranks with protocol (BETWEEN): anyone may count.
 * The version constant and generated tables are leaves anyone may import.
 */
const LAYERS = [
  "src/protocol",
  "src/shared",
  "src/ipc",
  "src/import",
  "src/client",
  "src/store",
  "src/embed",
  "src/memory",
  "src/llm",
  "src/skills",
  "src/agent",
  "src/kernel",
  "src/cli",
  "src/metrics",
];
const BETWEEN: Record<string, number> = { "src/metrics": 0, "src/import": 2.25, "src/client": 2.5 };
const LAYER_RANK = new Map(LAYERS.map((l, i) => [l, BETWEEN[l] ?? i]));
function rankOf(target: string | null): number | null {
  if (target === null || under(target, "src/version.ts", "src/generated", "src/types", "package.json", "dist"))
    return null;
  for (const [folder, rank] of LAYER_RANK) if (under(target, folder)) return rank;
  return null;
}

/**
 * Ways code reaches the database that only src/store may use: importing bun:sqlite (a
 * `Database` type too), a store's `db` or a member of any `.db`, a statement run on something
 * named `db`, and SQL text handed to `query`/`prepare`/`exec`/`run` on any receiver. A URL's
 * `c.req.query("q")`, `paths.db` (a file name) and a regex's `.exec(line)` are not.
 */
export function sqlUses(source: string): string[] {
  const found: string[] = [];
  if (importsOf(source).includes("bun:sqlite")) found.push("imports bun:sqlite");
  const patterns: [string, RegExp][] = [
    ["a store's database", /\bstore\??\.db\b/g],
    ["a member of a database", /\.db\??\.\s*\w+/g],
    ["a statement on a database", /\bdb\??\.(?:query|prepare|exec|run|transaction)\s*(?:<[^()]*>)?\s*\(/g],
    [
      "SQL text",
      /\.(?:query|prepare|exec|run)\s*(?:<[^()]*>)?\s*\(\s*[`'"]\s*(?:SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/gi,
    ],
  ];
  for (const [what, re] of patterns) for (const m of source.matchAll(re)) found.push(`${what}: ${m[0]}`);
  return found;
}

describe("import boundaries", () => {
  test("the scanner sees every import form", () => {
    const src = `import a from "./a.ts";\nimport { b } from '../b.ts';\nexport * from "./c.ts";\nimport "./d.ts";\nawait import("./e.ts");\nrequire("./f.js");\nimport type { G } from "./g.ts";`;
    expect(importsOf(src)).toEqual(
      ["./a.ts", "../b.ts", "./c.ts", "./g.ts", "./d.ts", "./e.ts", "./f.js"].sort(
        (x, y) => src.indexOf(x) - src.indexOf(y),
      ),
    );
  });

  test("plugins import only plugins/sdk, src/protocol, src/shared, src/ipc and their own folder", () => {
    const bad: string[] = [];
    for (const f of files(join(ROOT, "plugins"))) {
      const own = relative(ROOT, f).split("/").slice(0, 2).join("/");
      for (const { spec, target } of ownImports(f)) {
        if (target === null) continue;
        // One confinement for both tools that run programs: code_run uses shell_run's sandbox.
        if (own === "plugins/code" && target === "plugins/shell/sandbox.ts") continue;
        // The web listener serves A2A with the a2a plugin's settings, read as that plugin reads them.
        if (own === "plugins/web" && target === "plugins/a2a/config.ts") continue;
        // One network path for web content: rss fetches feeds through fetch_url's guard and capped GET.
        if (
          own === "plugins/rss" &&
          (target === "plugins/fetch/http-get.ts" || target === "plugins/fetch/address-guard.ts")
        )
          continue;
        if (!under(target, "plugins/sdk", "src/protocol", "src/shared", "src/ipc", own))
          bad.push(`${relative(ROOT, f)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("src/protocol imports nothing of ours but itself", () => {
    expect(violations("src/protocol", (t) => t === null || under(t, "src/protocol"))).toEqual([]);
  });

  test("src/metrics imports nothing of ours but itself", () => {
    expect(violations("src/metrics", (t) => t === null || under(t, "src/metrics"))).toEqual([]);
  });

  test("src/memory never imports src/llm", () => {
    expect(violations("src/memory", (t) => !under(t, "src/llm"))).toEqual([]);
  });

  test("src folders import only folders below them: protocol, metrics ← shared ← ipc ← import, client ← store ← embed ← memory ← llm ← agent ← kernel ← cli", () => {
    const bad: string[] = [];
    for (const [folder, rank] of LAYER_RANK) {
      for (const v of violations(folder, (t) => {
        const r = rankOf(t);
        return r === null || r <= rank;
      }))
        bad.push(v);
    }
    expect(bad).toEqual([]);
  });

  test("client sits between ipc and cli; waiter.ts imports only client, protocol, shared, ipc and kernel/data-paths.ts", () => {
    const client = violations(
      "src/client",
      (t) =>
        t === null ||
        under(t, "src/client", "src/protocol", "src/shared", "src/ipc", "src/version.ts", "src/kernel/data-paths.ts"),
    );
    const waiter = ownImports(join(ROOT, "src/waiter.ts"))
      .filter(
        ({ target }) =>
          target !== null &&
          !under(
            target,
            "src/client",
            "src/protocol",
            "src/shared",
            "src/ipc",
            "src/version.ts",
            "src/kernel/data-paths.ts",
          ),
      )
      .map(({ spec }) => `src/waiter.ts imports ${spec}`);
    expect([...client, ...waiter]).toEqual([]);
  });

  test("only the command line imports the Kernel class: method tables get KernelServices, so no cycle", () => {
    const bad: string[] = [];
    for (const f of files(join(ROOT, "src"))) {
      const from = relative(ROOT, f);
      if (from === "src/cli/commands.ts") continue;
      for (const { spec, target } of ownImports(f))
        if (target === "src/kernel/kernel.ts") bad.push(`${from} imports ${spec}`);
    }
    expect(bad).toEqual([]);
  });

  test("only src/ipc uses bun:ffi", () => {
    const bad: string[] = [];
    for (const dir of ["src", "plugins"]) {
      for (const f of files(join(ROOT, dir))) {
        if (relative(ROOT, f).startsWith("src/ipc/")) continue;
        if (importsOf(readFileSync(f, "utf8")).includes("bun:ffi")) bad.push(relative(ROOT, f));
      }
    }
    expect(bad).toEqual([]);
  });

  test("the SQL scanner sees a database reached outside the store, and not other queries", () => {
    const reached = [
      `import type { Database } from "bun:sqlite";`,
      `new Scenes(store.db, words);`,
      `const q = this.store.db.query("UPDATE t SET a = ?");`,
      `this.d.db.transaction(() => {})();`,
      `rows.query<{ n: number }, [string]>(\n  "SELECT count(*) AS n FROM t WHERE c = ?",\n);`,
      `conn.prepare(\`INSERT INTO t (a) VALUES (?)\`);`,
    ];
    for (const src of reached) expect(sqlUses(src)).not.toEqual([]);
    const other = [
      `const { q } = v.parse(SearchQuery, { q: c.req.query("q") });`,
      `store = Store.open(paths.db, { busyTimeoutMs: 5000 });`,
      `const m = /^(.*):(\\d+)$/.exec(listen);`,
      `await this.memory?.prepare(req.input);`,
      `store.transaction(() => {});`,
      `await page.locator("button").click(); url.searchParams.get("select");`,
    ];
    for (const src of other) expect(sqlUses(src)).toEqual([]);
  });

  test("only src/store touches the database: no bun:sqlite, store.db or SQL elsewhere in src and plugins", () => {
    const bad: string[] = [];
    for (const dir of ["src", "plugins"]) {
      for (const f of files(join(ROOT, dir))) {
        const from = relative(ROOT, f);
        if (from.startsWith("src/store/")) continue;
        for (const use of sqlUses(readFileSync(f, "utf8"))) bad.push(`${from}: ${use}`);
      }
    }
    expect(bad).toEqual([]);
  });
});
