/**
 * `homed skills` on a data dir, no daemon: add from a folder and from a git repository (a local
 * file:// one: a shallow clone), showing what it copies and asking unless -yes; what it refuses
 * (no valid skill, a name already there, a question nobody can answer); at a terminal it asks
 * y/N and a no copies nothing; remove; enable/disable
 * and trust kept in DATA/skills.json, never in the skill's own files.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startTmux } from "../harness/tmux.ts";

function writeSkill(root: string, name: string, description: string, files: Record<string, string> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: "${description}"\n---\n# ${name}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const skills = (data: string, ...args: string[]) => run([HOMED, "skills", ...args, "-data", data]);

async function list(data: string) {
  const r = await skills(data, "list", "-json");
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout) as {
    name: string;
    trusted: boolean;
    enabled: boolean;
    installedFrom: string | null;
    problem: string | null;
  }[];
}

async function git(cwd: string, ...args: string[]) {
  const r = await run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", ...args], { cwd });
  expect(r.exitCode).toBe(0);
}

describe("homed skills", () => {
  test("add from a folder shows what it copies, installs it untrusted; remove takes it away", async () => {
    using data = tempDir();
    using src = tempDir("homed-skill-src-");
    const from = writeSkill(src.path, "csv-report", "Turn a CSV file into a short report.", {
      "scripts/report.py": "print('report')\n",
      "references/columns.md": "# Columns\n",
    });
    symlinkSync("/etc/hostname", join(from, "link"));

    // Nobody at a terminal to ask: refused, nothing copied.
    const unasked = await skills(data.path, "add", from);
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toContain("pass -yes");
    expect(existsSync(join(data.path, "skills", "csv-report"))).toBe(false);

    const added = await skills(data.path, "add", from, "-yes");
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain("csv-report — Turn a CSV file into a short report.");
    expect(added.stdout).toMatch(/scripts\/report\.py {2}16 B/);
    expect(added.stdout).toContain("left out: link (a link)");
    expect(readFileSync(join(data.path, "skills", "csv-report", "scripts", "report.py"), "utf8")).toBe(
      "print('report')\n",
    );
    expect(existsSync(join(data.path, "skills", "csv-report", "link"))).toBe(false);
    expect((await list(data.path)).find((s) => s.name === "csv-report")).toMatchObject({
      trusted: false,
      enabled: true,
      installedFrom: from,
      problem: null,
    });
    const text = await skills(data.path, "list");
    expect(text.stdout).toMatch(/csv-report +DATA\/skills \(from \S+\) +no +yes/);

    // The same name again is refused; nothing is overwritten.
    const again = await skills(data.path, "add", from, "-yes");
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain("remove it first");

    // Disabled and trusted in DATA/skills.json; the skill's own SKILL.md is untouched.
    const before = readFileSync(join(data.path, "skills", "csv-report", "SKILL.md"), "utf8");
    expect((await skills(data.path, "disable", "csv-report")).stdout).toContain("csv-report: disabled");
    expect((await skills(data.path, "trust", "csv-report")).exitCode).toBe(0);
    expect((await list(data.path)).find((s) => s.name === "csv-report")).toMatchObject({
      trusted: true,
      enabled: false,
    });
    const state = JSON.parse(readFileSync(join(data.path, "skills.json"), "utf8"));
    expect(state).toMatchObject({ disabled: ["csv-report"], installed: { "csv-report": { trusted: true, from } } });
    expect(readFileSync(join(data.path, "skills", "csv-report", "SKILL.md"), "utf8")).toBe(before);

    const removed = await skills(data.path, "remove", "csv-report");
    expect(removed.exitCode).toBe(0);
    expect(existsSync(join(data.path, "skills", "csv-report"))).toBe(false);
    expect((await list(data.path)).map((s) => s.name)).not.toContain("csv-report");
    expect((await skills(data.path, "remove", "csv-report")).exitCode).not.toBe(0);
  }, 60_000);

  test("add from a git repository clones it shallow and installs every valid skill it holds", async () => {
    using data = tempDir();
    using repo = tempDir("homed-skill-repo-");
    writeSkill(join(repo.path, "skills"), "git-one", "The first skill of a repository.", {
      "scripts/a.sh": "echo a\n",
    });
    writeSkill(join(repo.path, "skills"), "git-two", "The second skill of a repository.");
    // A malformed one is reported and left out.
    mkdirSync(join(repo.path, "skills", "bad-one"), { recursive: true });
    writeFileSync(join(repo.path, "skills", "bad-one", "SKILL.md"), "no front matter\n");
    await git(repo.path, "init", "-q");
    await git(repo.path, "add", ".");
    await git(repo.path, "commit", "-q", "-m", "skills");
    const url = `file://${repo.path}`;

    const added = await skills(data.path, "add", url, "-yes");
    expect(added.exitCode).toBe(0);
    expect(added.stderr).toContain("not a valid skill");
    expect(added.stderr).toContain("bad-one");
    expect(added.stdout).toContain("added git-one");
    expect(added.stdout).toContain("added git-two");
    expect(existsSync(join(data.path, "skills", "git-one", "scripts", "a.sh"))).toBe(true);
    expect(existsSync(join(data.path, "skills", "git-one", ".git"))).toBe(false);
    const listed = await list(data.path);
    expect(listed.find((s) => s.name === "git-two")).toMatchObject({ trusted: false, installedFrom: url });
    expect(listed.map((s) => s.name)).not.toContain("bad-one");

    const missing = await skills(data.path, "add", `file://${repo.path}-nowhere`, "-yes");
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain("git clone");
  }, 60_000);

  test("a folder with no valid skill is refused with the reason; bad commands are usage errors", async () => {
    using data = tempDir();
    using src = tempDir("homed-skill-src-");
    const dir = join(src.path, "Bad_Name");
    mkdirSync(dir);
    writeFileSync(join(dir, "SKILL.md"), "---\nname: Bad_Name\ndescription: x\n---\n");
    const r = await skills(data.path, "add", dir, "-yes");
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain("not lowercase letters, digits and single hyphens");
    expect((await skills(data.path, "frob")).exitCode).toBe(2);
    expect((await skills(data.path, "remove")).exitCode).toBe(2);
    expect((await skills(data.path, "add", join(src.path, "nowhere"), "-yes")).stderr).toContain(
      "neither a folder nor a git URL",
    );
  }, 60_000);

  test("at a terminal, add asks before it copies: no adds nothing, yes adds", async () => {
    using data = tempDir();
    using src = tempDir("homed-skill-src-");
    const from = writeSkill(src.path, "asked-skill", "A skill that is asked about.");
    // Ctrl-D is a no too.
    for (const [keys, added] of [
      [["n", "Enter"], false],
      [["C-d"], false],
      [["y", "Enter"], true],
    ] as const) {
      await using term = await startTmux(data.path, [HOMED, "skills", "add", from, "-data", data.path]);
      await term.waitFor("Add? [y/N]");
      expect(await term.screen()).toContain("asked-skill — A skill that is asked about.");
      await term.press(...keys);
      if (!added) expect(await term.waitFor("nothing added")).not.toContain("error");
      expect(await term.waitExit()).toBe(added ? 0 : 1);
      expect(existsSync(join(data.path, "skills", "asked-skill"))).toBe(added);
    }
  }, 60_000);

  test("list checks each SKILL.md as the format says and gives the reason for each one skipped", async () => {
    using data = tempDir();
    const root = join(data.path, "skills");
    const put = (folder: string, text: string) => {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, "SKILL.md"), text);
    };
    const long = "a".repeat(65);
    put(
      "folded",
      "---\r\nname: folded\r\ndescription: >\r\n  Two lines\r\n  folded into one.\r\nmetadata:\r\n  author: x\r\n---\r\nbody\r\n",
    );
    put("colon-desc", "\uFEFF---\nname: colon-desc\ndescription: Do this: then that.\n---\n");
    put("double--hyphen", "---\nname: double--hyphen\ndescription: x\n---\n");
    put("-leading", "---\nname: -leading\ndescription: x\n---\n");
    put(long, `---\nname: ${long}\ndescription: x\n---\n`);
    put("other-folder", "---\nname: not-the-folder\ndescription: x\n---\n");
    put("too-long", `---\nname: too-long\ndescription: ${"d".repeat(1025)}\n---\n`);
    put("no-front", "# just markdown\n");
    put("unclosed", "---\nname: unclosed\ndescription: x\n");
    put("a-list", "---\n- name\n- description\n---\n");
    put("number-name", "---\nname: 42\ndescription: x\n---\n");
    mkdirSync(join(root, "empty-folder"));
    const byName = new Map((await list(data.path)).map((s) => [s.name, s.problem]));
    expect(byName.get("folded")).toBeNull();
    expect(byName.get("colon-desc")).toBeNull();
    expect(byName.get("double--hyphen")).toContain("not lowercase letters, digits and single hyphens");
    expect(byName.get("-leading")).toContain("not lowercase letters, digits and single hyphens");
    expect(byName.get(long)).toBe("name is 65 characters (at most 64)");
    expect(byName.get("other-folder")).toBe('name "not-the-folder" differs from its folder\'s name "other-folder"');
    expect(byName.get("too-long")).toBe("description is 1025 characters (at most 1024)");
    expect(byName.get("no-front")).toBe("SKILL.md does not start with YAML front matter (a line ---)");
    expect(byName.get("unclosed")).toBe("SKILL.md's front matter has no closing --- line");
    expect(byName.get("a-list")).toBe("front matter is not a mapping of fields");
    expect(byName.get("number-name")).toBe("name is not text");
    expect(byName.get("empty-folder")).toBe("no SKILL.md in the folder");
    const folded = JSON.parse((await skills(data.path, "list", "-json")).stdout).find(
      (s: { name: string }) => s.name === "folded",
    );
    expect(folded.description).toBe("Two lines folded into one.");
  }, 60_000);

  test("an unreadable skills.json makes DATA/skills' skills untrusted and is not overwritten", async () => {
    using data = tempDir();
    writeSkill(join(data.path, "skills"), "own-skill", "The owner's own skill.");
    expect((await list(data.path))[0]).toMatchObject({ name: "own-skill", trusted: true });
    writeFileSync(join(data.path, "skills.json"), "{ not json");
    const r = await skills(data.path, "list", "-json");
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ name: "own-skill", trusted: false });
    expect(r.stderr).toContain("count as untrusted until it is fixed");
    const disable = await skills(data.path, "disable", "own-skill");
    expect(disable.exitCode).not.toBe(0);
    expect(disable.stderr).toContain("fix or remove it first");
    expect(readFileSync(join(data.path, "skills.json"), "utf8")).toBe("{ not json");
  }, 60_000);
});
