/**
 * What each files tool answers, called through its module against a real temp dir: line
 * numbers and paging for files_read, atomic writes and the size cap, files_edit's unique-match
 * rule and its errors, listing, glob order and caps, grep results and guards. The daemon-level
 * path (specs, validation, approval) is in files.test.ts.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Confinement } from "../../plugins/sdk/confine.ts";
import { filesEdit } from "../../plugins/files/edit.ts";
import { filesGlob } from "../../plugins/files/glob.ts";
import { filesGrep, GREP_FILE_TIME_MS } from "../../plugins/files/grep.ts";
import { filesList, LIST_MAX } from "../../plugins/files/list.ts";
import { filesRead } from "../../plugins/files/read.ts";
import { filesWrite } from "../../plugins/files/write.ts";
import { tempDir } from "../harness/binary.ts";
import { refusal } from "./files-refusal.ts";

let dir: ReturnType<typeof tempDir>;
let ws: string;
let c: Confinement;

beforeEach(() => {
  dir = tempDir("homed-files-");
  c = new Confinement(["workspace"], dir.path);
  ws = c.workspace().real;
});
afterEach(() => dir[Symbol.dispose]());

const lines = (n: number, f = (i: number) => `line ${i}`) =>
  `${Array.from({ length: n }, (_, i) => f(i + 1)).join("\n")}\n`;

describe("files_read", () => {
  test("numbers lines; offset and limit pick a range and say where it ends", () => {
    writeFileSync(join(ws, "a.txt"), lines(10));
    expect(filesRead(c, { path: "a.txt" }, 256)).toBe(
      lines(10, (i) => `${String(i).padStart(6)}\tline ${i}`).trimEnd(),
    );
    const mid = filesRead(c, { path: "a.txt", offset: 3, limit: 2 }, 256);
    expect(mid).toBe("     3\tline 3\n     4\tline 4\n(showing lines 3-4 of 10; call again with offset=5 to read on)");
    expect(filesRead(c, { path: "a.txt", offset: 9 }, 256)).toEndWith("(showing lines 9-10 of 10; that is the end)");
  });

  test("a file over max_read_kb comes a page at a time, and the pages join up to the whole file", () => {
    const text = lines(3000, (i) => `row ${i} ${"x".repeat(40)}`);
    writeFileSync(join(ws, "big.txt"), text);
    const first = filesRead(c, { path: "big.txt" }, 16);
    const m = /\(showing lines 1-(\d+) of 3000; call again with offset=(\d+) to read on\)$/.exec(first);
    expect(m).not.toBeNull();
    expect(Buffer.byteLength(first)).toBeLessThan(17 * 1024);
    const got: string[] = [];
    let offset = 1;
    for (let pages = 0; pages < 100; pages++) {
      const page = filesRead(c, { path: "big.txt", offset }, 16);
      const body = page.split("\n").filter((l) => !l.startsWith("(showing"));
      got.push(...body.map((l) => l.slice(l.indexOf("\t") + 1)));
      const next = /offset=(\d+) to read on\)$/.exec(page);
      if (!next) break;
      offset = Number(next[1]);
    }
    expect(`${got.join("\n")}\n`).toBe(text);
  });

  test("one line longer than a page shows its start and says so; the count still covers the file", () => {
    writeFileSync(join(ws, "min.js"), `${"a".repeat(5 * 1024 * 1024)}\nsecond\n`);
    const page = filesRead(c, { path: "min.js" }, 4);
    expect(page).toContain("[line 1 is longer than a page (4.0 KiB, max_read_kb); only its start is shown]");
    expect(page).toContain("(showing lines 1-1 of 2; call again with offset=2 to read on)");
    expect(Buffer.byteLength(page)).toBeLessThan(5 * 1024);
    expect(filesRead(c, { path: "min.js", offset: 2 }, 4)).toStartWith("     2\tsecond");
  });

  test("binary files are refused with a reason, empty ones said to be empty, offsets past the end refused", async () => {
    writeFileSync(join(ws, "img.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    expect(await refusal(() => filesRead(c, { path: "img.png" }, 256))).toBe(
      "img.png is a binary file (a NUL byte at offset 4); files tools show and edit UTF-8 text only",
    );
    writeFileSync(join(ws, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(await refusal(() => filesRead(c, { path: "latin1.txt" }, 256))).toContain("not valid UTF-8");
    writeFileSync(join(ws, "empty"), "");
    expect(filesRead(c, { path: "empty" }, 256)).toBe("empty is empty (0 bytes)");
    writeFileSync(join(ws, "three"), "a\nb\nc");
    expect(await refusal(() => filesRead(c, { path: "three", offset: 9 }, 256))).toBe(
      "offset 9 is past the end: three has 3 lines",
    );
    expect(await refusal(() => filesRead(c, { path: "nope.txt" }, 256))).toContain("nope.txt does not exist");
    expect(await refusal(() => filesRead(c, { path: "." }, 256))).toContain("is a folder; use files_list");
  });

  test("multi-byte text split across the 1 MiB read chunks decodes whole", () => {
    const text = "é".repeat(700_000); // 1.4 MB, so a chunk boundary falls inside a character
    writeFileSync(join(ws, "u.txt"), `${text}\n`);
    expect(filesRead(c, { path: "u.txt" }, 2048)).toBe(`     1\t${text}`);
  });
});

describe("files_write", () => {
  test("creates parents, replaces atomically, keeps the mode, leaves no temp file", () => {
    expect(filesWrite(c, { path: "a/b/c.txt", content: "one\ntwo\n" }, 10)).toBe(
      "wrote a/b/c.txt: 8 B, 2 lines (new file)",
    );
    expect(readFileSync(join(ws, "a/b/c.txt"), "utf8")).toBe("one\ntwo\n");
    chmodSync(join(ws, "a/b/c.txt"), 0o600);
    expect(filesWrite(c, { path: "a/b/c.txt", content: "three" }, 10)).toBe(
      "wrote a/b/c.txt: 5 B, 1 line (replaced 8 B)",
    );
    expect(readFileSync(join(ws, "a/b/c.txt"), "utf8")).toBe("three");
    expect(statSync(join(ws, "a/b/c.txt")).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(ws, "a/b"))).toEqual(["c.txt"]);
  });

  test("content over max_write_kb is refused and nothing is written; a folder is not a file", async () => {
    const msg = await refusal(() => filesWrite(c, { path: "big.txt", content: "x".repeat(2048 + 1) }, 2));
    expect(msg).toBe("content is 2.0 KiB; files_write takes at most 2.0 KiB (max_write_kb) per file");
    expect(readdirSync(ws)).toEqual([]);
    mkdirSync(join(ws, "d"));
    expect(await refusal(() => filesWrite(c, { path: "d", content: "x" }, 2))).toContain("d is a folder");
    writeFileSync(join(ws, "f"), "x");
    expect(await refusal(() => filesWrite(c, { path: "f/under.txt", content: "x" }, 2))).toContain("not a folder");
  });
});

describe("files_edit", () => {
  const src = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n";

  test("replaces a unique match and shows the lines around it", () => {
    writeFileSync(join(ws, "m.js"), src);
    const out = filesEdit(
      c,
      { path: "m.js", old_string: "function b() {\n  return 1;", new_string: "function b() {\n  return 2;" },
      10,
    );
    expect(out).toStartWith("edited m.js: replaced 1 occurrence (line 5)\n");
    expect(out).toContain("     6\t  return 2;");
    expect(readFileSync(join(ws, "m.js"), "utf8")).toBe(
      "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n",
    );
  });

  test("several matches: an error with the count and line numbers, file unchanged; replace_all replaces them all", async () => {
    writeFileSync(join(ws, "m.js"), src);
    expect(
      await refusal(() => filesEdit(c, { path: "m.js", old_string: "return 1;", new_string: "return 0;" }, 10)),
    ).toBe(
      "old_string occurs 2 times in m.js (lines 2, 6); include more surrounding text to pick one, or set replace_all: true to replace them all",
    );
    expect(readFileSync(join(ws, "m.js"), "utf8")).toBe(src);
    expect(
      filesEdit(c, { path: "m.js", old_string: "return 1;", new_string: "return 0;", replace_all: true }, 10),
    ).toStartWith("edited m.js: replaced 2 occurrences (lines 2, 6)");
    expect(readFileSync(join(ws, "m.js"), "utf8")).toBe(src.replaceAll("return 1;", "return 0;"));
  });

  test("no match: the closest line is quoted with its number; a whitespace-only difference is named", async () => {
    writeFileSync(join(ws, "m.js"), src);
    expect(
      await refusal(() => filesEdit(c, { path: "m.js", old_string: "function bb() {", new_string: "x" }, 10)),
    ).toBe(
      'old_string was not found in m.js; the closest line is 5: "function b() {"; copy the text exactly as files_read shows it',
    );
    expect(
      await refusal(() => filesEdit(c, { path: "m.js", old_string: "function b() {\nreturn 1;", new_string: "x" }, 10)),
    ).toContain("it is there if spaces, tabs or indentation are ignored");
    expect(await refusal(() => filesEdit(c, { path: "m.js", old_string: "zzzz qqqq", new_string: "x" }, 10))).toContain(
      'no line looks like "zzzz qqqq"',
    );
    expect(await refusal(() => filesEdit(c, { path: "m.js", old_string: "", new_string: "x" }, 10))).toContain(
      "use files_write",
    );
    expect(readFileSync(join(ws, "m.js"), "utf8")).toBe(src);
  });
});

test("files_edit: in a CRLF file, old_string and new_string copied with \\n alone match and keep CRLF", () => {
  writeFileSync(join(ws, "w.txt"), "one\r\ntwo\r\nthree\r\n");
  expect(filesEdit(c, { path: "w.txt", old_string: "one\ntwo", new_string: "one\n2\nmore" }, 10)).toStartWith(
    "edited w.txt: replaced 1 occurrence (line 1)",
  );
  expect(readFileSync(join(ws, "w.txt"), "utf8")).toBe("one\r\n2\r\nmore\r\nthree\r\n");
});

describe("files_list", () => {
  test("folders first, then files with size and time; capped with a count of the rest", async () => {
    mkdirSync(join(ws, "zdir"));
    writeFileSync(join(ws, "b.txt"), "12345");
    writeFileSync(join(ws, "a.txt"), "");
    utimesSync(join(ws, "b.txt"), new Date("2026-01-02T03:04:00Z"), new Date("2026-01-02T03:04:00Z"));
    const out = filesList(c, {}).split("\n");
    expect(out[0]).toBe(".: 3 entries");
    expect(out[1]).toMatch(/^dir +- +\d{4}-\d\d-\d\d \d\d:\d\d {2}zdir\/$/);
    expect(out[2]).toMatch(/^file +0 B .* {2}a\.txt$/);
    expect(out[3]).toBe("file         5 B  2026-01-02 03:04  b.txt");
    for (let i = 0; i <= LIST_MAX; i++) writeFileSync(join(ws, "zdir", `f${i}`), "");
    const many = filesList(c, { path: "zdir" });
    expect(many).toEndWith("… and 1 more (use files_glob to narrow down)");
    expect(await refusal(() => filesList(c, { path: "b.txt" }))).toContain("use files_read");
  });
});

describe("files_glob", () => {
  test("newest first by default, or by name; capped with N more; dotfiles only when named", async () => {
    mkdirSync(join(ws, "src/deep"), { recursive: true });
    const put = (p: string, when: string) => {
      writeFileSync(join(ws, p), "x");
      utimesSync(join(ws, p), new Date(when), new Date(when));
    };
    put("src/old.ts", "2026-01-01T00:00:00Z");
    put("src/deep/new.ts", "2026-06-01T00:00:00Z");
    put("src/mid.ts", "2026-06-15T00:00:00Z"); // newest, though not first by name
    put("src/.hidden.ts", "2026-07-01T00:00:00Z");
    put("src/readme.md", "2026-07-01T00:00:00Z");
    expect(await filesGlob(c, { pattern: "**/*.ts" })).toBe("src/mid.ts\nsrc/deep/new.ts\nsrc/old.ts");
    expect(await filesGlob(c, { pattern: "**/*.ts", sort: "name" })).toBe("src/deep/new.ts\nsrc/mid.ts\nsrc/old.ts");
    expect(await filesGlob(c, { pattern: "*.ts", path: "src", sort: "name", limit: 1 })).toBe(
      "src/mid.ts\n… and 1 more (raise limit or narrow the pattern)",
    );
    expect(await filesGlob(c, { pattern: "**/.*.ts" })).toBe("src/.hidden.ts");
    expect(await filesGlob(c, { pattern: "**/*.py" })).toBe('no files match "**/*.py" under .');
  });
});

describe("files_grep", () => {
  test("path:line: text for each match, glob filter, ignore_case, limit with N more", async () => {
    mkdirSync(join(ws, "docs"));
    writeFileSync(join(ws, "docs/a.md"), "Alpha\nbeta\nalpha again\n");
    writeFileSync(join(ws, "b.txt"), "no\nalphabet\n");
    expect(await filesGrep(c, { pattern: "alpha" })).toBe("b.txt:2: alphabet\ndocs/a.md:3: alpha again");
    expect(await filesGrep(c, { pattern: "^alpha", ignore_case: true, glob: "**/*.md" })).toBe(
      "docs/a.md:1: Alpha\ndocs/a.md:3: alpha again",
    );
    expect(await filesGrep(c, { pattern: "a", limit: 2 })).toBe(
      "b.txt:2: alphabet\ndocs/a.md:1: Alpha\n… and 2 more matching lines (raise limit, or narrow path or glob)",
    );
    expect(await filesGrep(c, { pattern: "beta", path: "docs/a.md" })).toBe("docs/a.md:2: beta");
    expect(await refusal(() => filesGrep(c, { pattern: "(unclosed" }))).toStartWith(
      "pattern is not a valid JavaScript regular expression",
    );
  });

  test("binary files are skipped and counted; huge lines are matched on their start and shown cut", async () => {
    writeFileSync(join(ws, "bin.dat"), new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 0]));
    writeFileSync(
      join(ws, "long.txt"),
      `${"y".repeat(200)}needle${"z".repeat(2_000_000)}\n${"w".repeat(20_000)}needle\n`,
    );
    const out = await filesGrep(c, { pattern: "needle" });
    const rows = out.split("\n");
    expect(rows[0]).toStartWith("long.txt:1: …");
    expect(rows[0]!.length).toBeLessThan(320);
    expect(rows[0]).toContain("needle");
    expect(out).not.toContain("long.txt:2:");
    expect(rows.at(-1)).toBe("(skipped files: 1 binary)");
  });

  test("a line the regex engine gives up on is not reported as no match: the file stops there, with a reason", async () => {
    writeFileSync(join(ws, "a.txt"), "aaa\n");
    // JavaScriptCore gives up on one such line after a backtracking budget (0.4–2 s, by the
    // machine) and answers false, as if the line did not match.
    writeFileSync(join(ws, "b.txt"), `aaa\n${"a".repeat(40)}b\n`.repeat(60));
    const started = Date.now();
    const out = await filesGrep(c, { pattern: "^(a+)+$" });
    expect(Date.now() - started).toBeLessThan(GREP_FILE_TIME_MS);
    expect(out).toMatch(
      /^a\.txt:1: aaa\nb\.txt:1: aaa\n\(stopped: matching \/\^\(a\+\)\+\$\/ in b\.txt took \d+\.\d s on line 2 alone, and the regex engine may have given up on it; the pattern probably backtracks without end — nested quantifiers such as \(a\+\)\+ or \(\.\*\)\* — so simplify it\)$/,
    );
    expect(out).not.toContain("no lines match");
  }, 20_000);

  test("a pattern slow on every line is stopped after its time on one file, with what was found before", async () => {
    writeFileSync(join(ws, "a.txt"), "aaa\n");
    // Each line backtracks for ~10–30 ms (well under the engine's budget and GREP_LINE_TIME_MS);
    // two thousand of them hold the file far over its time on any machine.
    writeFileSync(join(ws, "b.txt"), `${"a".repeat(21)}b\n`.repeat(2000));
    const started = Date.now();
    const out = await filesGrep(c, { pattern: "^(a+)+$" });
    expect(Date.now() - started).toBeLessThan(GREP_FILE_TIME_MS + 3000);
    expect(out).toBe(
      `a.txt:1: aaa\n(stopped: matching /^(a+)+$/ in b.txt took over ${GREP_FILE_TIME_MS / 1000} s; the pattern probably backtracks without end — nested quantifiers such as (a+)+ or (.*)* — so simplify it)`,
    );
  }, 20_000);

  test("a stopped turn (the tool's signal) ends a running match at once", async () => {
    writeFileSync(join(ws, "b.txt"), `${"a".repeat(40)}b\n`.repeat(6));
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 300);
    expect(await refusal(() => filesGrep(c, { pattern: "^(a+)+$" }, ac.signal))).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(1500);
  }, 20_000);
});
