/**
 * The man pages scripts/dist/man.ts writes for the packages (issue 32): homed(1) from `homed
 * help`, waiter(1) and homed-desktop(1) from waiter's usage table, homed.conf(5) from the config
 * `homed initconfig` writes. Each renders with man -l without a groff warning, names every
 * subcommand, flag or setting its source has (so a page cannot fall behind the help text), and
 * is gzipped as Debian asks (maximum compression, no file name or time stamp). Needs man-db and
 * groff (Debian's man-db package); about a second.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { confPage, parseHomedHelp, writeManPages } from "../../scripts/dist/man.ts";
import { SUBCOMMANDS, usage } from "../../src/cli/commands.ts";
import { WAITER_FLAGS } from "../../src/client/waiter-usage.ts";
import { HOMED, run, tempDir } from "../harness/binary.ts";

let dir = "";
let config = "";
beforeAll(async () => {
  if (!Bun.which("man")) throw new Error("man is missing: apt-get install man-db");
  using data = tempDir();
  const r = await run([HOMED, "initconfig", "-data", data.path]);
  if (r.exitCode !== 0) throw new Error(`homed initconfig failed: ${r.stderr}`);
  config = readFileSync(join(data.path, "config.toml"), "utf8");
  dir = mkdtempSync(join(tmpdir(), "homed-man-"));
  writeManPages(dir, config);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The page rendered as a terminal shows it (plain text), and groff's warnings. */
async function render(page: string): Promise<{ text: string; warnings: string }> {
  const r = await run(["man", "--warnings", "-E", "UTF-8", "-l", join(dir, page)], {
    env: { MANWIDTH: "80", MAN_KEEP_FORMATTING: "", LC_ALL: "C.UTF-8", PATH: process.env.PATH ?? "" },
  });
  expect(r.exitCode).toBe(0);
  return { text: r.stdout, warnings: r.stderr };
}

test("each page is gzip -9n: maximum compression, no name, no time stamp", () => {
  for (const page of ["man1/homed.1.gz", "man1/waiter.1.gz", "man1/homed-desktop.1.gz", "man5/homed.conf.5.gz"]) {
    const gz = readFileSync(join(dir, page));
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
    expect((gz[3] as number) & 0x08).toBe(0); // FNAME
    expect(gz.readUInt32LE(4)).toBe(0); // MTIME
    expect(gz[8]).toBe(2); // XFL: slowest, best compression
  }
});

test("homed(1): every subcommand and flag of homed help, without a groff warning", async () => {
  const { text, warnings } = await render("man1/homed.1.gz");
  expect(warnings).toBe("");
  expect(text).toMatch(/^NAME\n\s+homed - a self-hosted agent kernel$/m);
  for (const c of SUBCOMMANDS) expect(text).toMatch(new RegExp(`^\\s+homed ${c.name}\\b`, "m"));
  const help = parseHomedHelp(usage());
  expect(help.usages.length).toBe(SUBCOMMANDS.length + 1);
  for (const f of help.flags) {
    expect(text).toMatch(new RegExp(`^\\s+-${f.name}${f.arg ? ` ${f.arg}` : ""}(\\s|$)`, "m"));
    // The flag's text, as help has it (man may break the line anywhere).
    expect(text.replace(/\s+/g, " ")).toContain(f.usage);
  }
  expect(text).toContain("homed.conf(5)");
});

test("waiter(1) and homed-desktop(1): waiter's commands and flags", async () => {
  const { text, warnings } = await render("man1/waiter.1.gz");
  expect(warnings).toBe("");
  for (const cmd of ["status", "desktop", "version"])
    expect(text).toMatch(new RegExp(`^\\s+waiter .*\\b${cmd}\\b`, "m"));
  for (const f of WAITER_FLAGS)
    expect(text).toMatch(new RegExp(`^\\s+-${f.name}${f.arg ? ` ${f.arg}` : ""}(\\s|$)`, "m"));
  const desktop = await render("man1/homed-desktop.1.gz");
  expect(desktop.warnings).toBe("");
  expect(desktop.text).toMatch(/^\s+homed-desktop \[-data DIR\] \[-connect URL\]/m);
  expect(desktop.text).toMatch(/^\s+-version\s/m);
  expect(desktop.text).not.toMatch(/^\s+-p TEXT\s/m);
});

test("homed.conf(5): every section and setting of the config homed initconfig writes, with its default", async () => {
  const { text, warnings } = await render("man5/homed.conf.5.gz");
  expect(warnings).toBe("");
  const parsed = Bun.TOML.parse(config) as Record<string, unknown>;
  let settings = 0;
  const walk = (obj: Record<string, unknown>, path: string[]): void => {
    for (const [k, v] of Object.entries(obj)) {
      if (v && typeof v === "object" && !Array.isArray(v)) {
        // A table with settings of its own has its heading ([tools] has only subtables).
        const own = Object.values(v).some((x) => !x || typeof x !== "object" || Array.isArray(x));
        if (own) expect(text).toMatch(new RegExp(`^\\s+\\[${[...path, k].join("\\.")}\\]$`, "m"));
        walk(v as Record<string, unknown>, [...path, k]);
      } else {
        expect(text).toMatch(new RegExp(`^\\s+${k} = `, "m"));
        settings++;
      }
    }
  };
  walk(parsed, []);
  expect(settings).toBeGreaterThan(50);
  expect(text).toContain('listen = "127.0.0.1:8080"');
  // A commented example stays a literal block (the MCP server entries).
  expect(text).toMatch(/^\s+\[\[mcp\.servers\]\]$/m);
  // A line the parser does not know is refused, not dropped.
  expect(() => confPage("[x]\nthis is not toml\n", "2026-01-01")).toThrow("cannot read the line");
});
