/**
 * Agent Skills through dist/homed with the scripted model (docs/skills.md): a skill in
 * DATA/skills is listed and counted, offered (its name and description in `skill`'s description)
 * when the input fits it and not otherwise, loaded by `skill`, its files read by `skill_file`
 * inside its folder only, and its script run through shell_run — asked about first, and run in
 * the sandbox where the skill's folder is /skills/<name>. A malformed SKILL.md is listed with its
 * reason. A skill of ~/.claude/skills is found once `[skills] paths` names it, and not before. An
 * installed skill's text carries the untrusted mark until the owner trusts it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMED, run, tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import type { RecordedRequest } from "../harness/fake-llm.ts";
import { poll } from "../harness/poll.ts";
import { webUrlOf } from "../harness/daemon.ts";
import { connectUnixRpc } from "../../src/ipc/unix-rpc.ts";

interface OpenAiTool {
  function: { name: string; description: string };
}

const toolsOf = (r: RecordedRequest | undefined) => (r?.body.tools as OpenAiTool[] | undefined) ?? [];
const skillSpec = (r: RecordedRequest | undefined) => toolsOf(r).find((t) => t.function.name === "skill");
const toolMessages = (r: RecordedRequest | undefined) =>
  ((r?.body.messages ?? []) as { role: string; content: string }[]).filter((m) => m.role === "tool");

/** A skill folder `root/name` with its SKILL.md and files. */
function writeSkill(root: string, name: string, description: string, body: string, files: Record<string, string> = {}) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\nlicense: MIT\n---\n${body}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const PDF_DESCRIPTION = "Fill in PDF forms: read the form's fields, write values into them and save a filled copy.";

function pdfSkill(data: string): string {
  return writeSkill(
    join(data, "skills"),
    "pdf-forms",
    PDF_DESCRIPTION,
    "# Filling PDF forms\n\n1. Read references/fields.md.\n2. Run scripts/fill.sh FORM.",
    {
      "references/fields.md": "# Fields\nname, date, signature\n",
      "scripts/fill.sh": 'echo "filled $1" | tee filled.txt\n',
    },
  );
}

/** What `homed status -json` counts of skills. */
const skillCounts = (st: Record<string, unknown>) =>
  st.skills as { valid: number; disabled: number; invalid: number } | undefined;

async function skillsList(data: string, env: Record<string, string> = {}) {
  const r = await run([HOMED, "skills", "list", "-json", "-data", data], { env });
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout) as { name: string; problem: string | null; trusted: boolean; where: string }[];
}

describe("agent skills", () => {
  test("a skill of DATA/skills is listed in every call's skill tool, loaded, its files read inside its folder, its script asked about", async () => {
    using dir = tempDir();
    const skillDir = pdfSkill(dir.path);
    // A malformed one beside it: listed with the reason, never offered.
    mkdirSync(join(dir.path, "skills", "broken"), { recursive: true });
    writeFileSync(join(dir.path, "skills", "broken", "SKILL.md"), "---\nname: broken\n---\nno description\n");
    await using rig = await startAgentRig(dir.path, { plugin: false });

    expect((await rig.status()).skills).toEqual({ valid: 1, disabled: 0, invalid: 1 });
    const listed = await skillsList(dir.path);
    expect(listed.find((s) => s.name === "pdf-forms")).toMatchObject({ problem: null, trusted: true, where: "data" });
    expect(listed.find((s) => s.name === "broken")?.problem).toBe("front matter has no description");
    const status = await run([HOMED, "status", "-data", dir.path]);
    expect(status.stdout).toContain("skills   1 valid, 1 invalid");

    // Listed in `skill` on every call, whatever the input: the tools block stands still from
    // prompt to prompt (src/agent/tool-offer.ts); the broken one is not listed.
    rig.llm.script([{ text: "I can help." }]);
    await rig.chat("Hello, what can you do?", { conv: "plain" });
    expect(skillSpec(rig.llm.requests[0])?.function.description).toContain("- pdf-forms: ");
    rig.llm.script([{ text: "Bubbly." }]);
    await rig.chat("what form should my sourdough starter have?", { conv: "bread" });
    expect(JSON.stringify(rig.llm.requests[1]?.body.tools)).toBe(JSON.stringify(rig.llm.requests[0]?.body.tools));

    // Offered to one it fits; loaded; a reference read; a path out of the folder refused; the
    // script asked about and declined, so it does not run.
    rig.llm.script([
      { toolCalls: [{ name: "skill", arguments: { name: "pdf-forms" } }] },
      { toolCalls: [{ name: "skill_file", arguments: { name: "pdf-forms", path: "references/fields.md" } }] },
      { toolCalls: [{ name: "skill_file", arguments: { name: "pdf-forms", path: "../broken/SKILL.md" } }] },
      { toolCalls: [{ name: "shell_run", arguments: { command: "bash /skills/pdf-forms/scripts/fill.sh tax.pdf" } }] },
    ]);
    const declined = await rig.chat("please fill in the PDF form tax.pdf for me", { conv: "form", stdin: "n\n" });
    const [first, second, third, fourth] = rig.llm.requests.slice(2);
    expect(skillSpec(first)?.function.description).toContain(`- pdf-forms: ${PDF_DESCRIPTION}`);
    expect(skillSpec(first)?.function.description).not.toContain("broken");
    const loaded = toolMessages(second).at(-1)?.content ?? "";
    expect(loaded).toContain(`Folder: ${skillDir}.`);
    expect(loaded).toContain("# Filling PDF forms");
    expect(loaded).toContain("/skills/pdf-forms");
    expect(loaded).toContain("references/fields.md (");
    expect(toolMessages(third).at(-1)?.content).toContain("name, date, signature");
    expect(toolMessages(fourth).at(-1)?.content).toContain('".." is not allowed');
    expect(declined.stderr).toContain("? allow shell_run");
    expect(declined.stderr).toContain("denied: the user declined shell_run");
    expect(existsSync(join(dir.path, "workspace", "filled.txt"))).toBe(false);

    // Asked again and allowed: it runs in the sandbox, from the skill's folder at /skills/pdf-forms.
    rig.llm.script([
      { toolCalls: [{ name: "shell_run", arguments: { command: "bash /skills/pdf-forms/scripts/fill.sh tax.pdf" } }] },
      { text: "Filled." },
    ]);
    const allowed = await rig.chat("go ahead and fill it", { conv: "form", stdin: "y\n" });
    expect(allowed.stderr).toContain("? allow shell_run");
    expect(allowed.stdout).toContain("Filled.");
    expect(toolMessages(rig.llm.requests.at(-1)).at(-1)?.content).toContain("filled tax.pdf");
    expect(existsSync(join(dir.path, "workspace", "filled.txt"))).toBe(true);

    // tools_find finds skills too.
    const asked = rig.llm.requests.length;
    rig.llm.script([
      { toolCalls: [{ name: "tools_find", arguments: { query: "fill in pdf forms" } }] },
      { text: "ok" },
    ]);
    await rig.chat("hello again", { conv: "find" });
    expect(toolMessages(rig.llm.requests[asked + 1]).at(-1)?.content).toContain(`- pdf-forms: ${PDF_DESCRIPTION}`);
    expect(skillSpec(rig.llm.requests[asked + 1])?.function.description).toContain("- pdf-forms:");

    // Disabled, it is neither offered nor loadable.
    expect((await run([HOMED, "skills", "disable", "pdf-forms", "-data", dir.path])).exitCode).toBe(0);
    const before = rig.llm.requests.length;
    rig.llm.script([{ toolCalls: [{ name: "skill", arguments: { name: "pdf-forms" } }] }, { text: "ok" }]);
    await rig.chat("please fill in the PDF form tax.pdf for me", { conv: "form-2" });
    expect(skillSpec(rig.llm.requests[before])).toBeUndefined();
    expect(toolMessages(rig.llm.requests[before + 1]).at(-1)?.content).toContain('no usable skill "pdf-forms"');
    expect((await rig.status()).skills).toEqual({ valid: 1, disabled: 1, invalid: 1 });
  }, 90_000);

  test("a skill of ~/.claude/skills is found once [skills] paths names it, and not before", async () => {
    using dir = tempDir();
    using home = tempDir("homed-home-");
    writeSkill(
      join(home.path, ".claude", "skills"),
      "release-notes",
      "Write release notes from a list of merged changes, grouped by kind.",
      "# Release notes\nGroup the changes.",
    );
    // Three more that fit the same input, with descriptions as long as the format allows: what
    // rides along stays within the 1,024 characters OpenAI's API takes for a tool description.
    for (const kind of ["changelog", "announcement", "summary"])
      writeSkill(
        join(home.path, ".claude", "skills"),
        `release-${kind}`,
        `Write the release ${kind} from merged changes. ${"Be thorough about every detail. ".repeat(30)}`.slice(
          0,
          1024,
        ),
        "# Write",
      );
    const env = { HOME: home.path };
    const data = join(dir.path, "data");
    await using rig = await startAgentRig(data, { plugin: false, env });
    expect((await skillsList(data, env)).map((s) => s.name)).not.toContain("release-notes");
    expect(skillCounts(await rig.status())?.valid).toBe(0);
    rig.llm.script([{ text: "ok" }]);
    await rig.chat("write the release notes for these merged changes", { conv: "before" });
    expect(skillSpec(rig.llm.requests[0])).toBeUndefined();

    writeFileSync(join(data, "config.toml"), `[skills]\npaths = ["~/.claude/skills"]\n`);
    rig.daemon.proc.kill("SIGHUP");
    await rig.daemon.waitFor(/configuration reloaded.*applied=skills\.paths/);
    const found = (await skillsList(data, env)).find((s) => s.name === "release-notes");
    expect(found).toMatchObject({ problem: null, trusted: true, where: "path" });
    await poll(rig.status, (st) => skillCounts(st)?.valid === 4, { what: "the daemon finding the skills" });
    rig.llm.script([{ text: "ok" }]);
    await rig.chat("write the release notes for these merged changes", { conv: "after" });
    const listed = skillSpec(rig.llm.requests[1])?.function.description ?? "";
    expect(listed).toContain("- release-notes: Write release notes");
    expect(listed.length).toBeLessThanOrEqual(1024);
    // Every usable skill is listed, each description cut to share the tool description's room.
    expect(listed.match(/\n- release-/g)).toHaveLength(4);
    // Homed does not delete the owner's own folders.
    const rm = await run([HOMED, "skills", "remove", "release-notes", "-data", data], { env });
    expect(rm.exitCode).not.toBe(0);
    expect(rm.stderr).toContain("homed does not delete your folders");
  }, 90_000);

  test("an installed skill's text carries the untrusted mark until the owner trusts it", async () => {
    using dir = tempDir();
    using src = tempDir("homed-skill-src-");
    writeSkill(
      src.path,
      "tidy-notes",
      "Tidy up notes files: merge duplicates and sort headings.",
      "# Tidy\nWrite the result.",
    );
    pdfSkill(dir.path);
    writeFileSync(join(dir.path, "config.toml"), `[approval]\nallow = ["files_write"]\n`);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const added = await run([HOMED, "skills", "add", join(src.path, "tidy-notes"), "-yes", "-data", dir.path]);
    expect(added.exitCode).toBe(0);
    expect((await skillsList(dir.path)).find((s) => s.name === "tidy-notes")).toMatchObject({ trusted: false });

    const write = (path: string) => ({ toolCalls: [{ name: "files_write", arguments: { path, content: "x" } }] });
    // The owner's own skill: the allowed write runs unasked after it.
    rig.llm.script([
      { toolCalls: [{ name: "skill", arguments: { name: "pdf-forms" } }] },
      write("own.txt"),
      { text: "ok" },
    ]);
    const own = await rig.chat("fill the pdf form", { conv: "own" });
    expect(own.stderr).not.toContain("untrusted text is in view");
    expect(existsSync(join(dir.path, "workspace", "own.txt"))).toBe(true);

    // The installed one: the same write is asked about, naming where the text came from.
    rig.llm.script([{ toolCalls: [{ name: "skill", arguments: { name: "tidy-notes" } }] }, write("foreign.txt")]);
    const foreign = await rig.chat("tidy my notes", { conv: "foreign", stdin: "n\n" });
    expect(foreign.stderr).toContain(
      `asked although allowed: untrusted text is in view (from skill: skill tidy-notes installed from ${join(src.path, "tidy-notes")})`,
    );
    expect(existsSync(join(dir.path, "workspace", "foreign.txt"))).toBe(false);
    // Until then its author's description never rides in a request: the skill is named, and said to be untrusted.
    const offered = rig.llm.requests.map((r) => skillSpec(r)?.function.description ?? "").join("\n");
    expect(offered).toContain("- tidy-notes: (installed from elsewhere, not trusted by the owner");
    expect(offered).not.toContain("merge duplicates and sort headings");

    // Trusted by the owner, it marks nothing.
    expect((await run([HOMED, "skills", "trust", "tidy-notes", "-data", dir.path])).exitCode).toBe(0);
    rig.llm.script([
      { toolCalls: [{ name: "skill", arguments: { name: "tidy-notes" } }] },
      write("trusted.txt"),
      { text: "ok" },
    ]);
    const trusted = await rig.chat("tidy my notes", { conv: "trusted" });
    expect(trusted.stderr).not.toContain("untrusted text is in view");
    expect(existsSync(join(dir.path, "workspace", "trusted.txt"))).toBe(true);
  }, 90_000);

  test("a scene's skill list narrows which skills are offered and loadable", async () => {
    using dir = tempDir();
    pdfSkill(dir.path);
    writeSkill(join(dir.path, "skills"), "pdf-merge", "Merge PDF forms and documents into one PDF file.", "# Merge");
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const c = await connectUnixRpc(
      rig.daemon.socket,
      { warn: () => {}, debug: () => {} },
      { onRequest: () => ({ approved: false }) },
    );
    const scene = "chan:cli/peer:office";
    const send = (conv: string) =>
      c.peer.request("chat.send", { text: "please fill in the pdf forms", conv, channel: "cli", scene });
    try {
      // A declared scene is listed (and can be set from the page) once it recurred.
      rig.llm.script([{ text: "ok" }, { text: "ok" }, { text: "ok" }]);
      for (const conv of ["office-1", "office-2", "office-3"]) await send(conv);
      const both = skillSpec(rig.llm.requests[0])?.function.description ?? "";
      expect(both).toContain("- pdf-forms:");
      expect(both).toContain("- pdf-merge:");

      const web = await webUrlOf(rig.daemon);
      const scenes = (await (await fetch(`${web}api/scenes`)).json()) as { id: number; key: string }[];
      const declared = scenes.find((x) => x.key === scene);
      expect(declared).toBeDefined();
      const set = await fetch(`${web}api/scenes/${declared?.id}`, {
        method: "POST",
        headers: { "x-homed": "1", "content-type": "application/json" },
        body: JSON.stringify({ persona: "", tools: null, skills: ["pdf-merge"] }),
      });
      expect(set.status).toBe(200);

      rig.llm.script([{ toolCalls: [{ name: "skill", arguments: { name: "pdf-forms" } }] }, { text: "ok" }]);
      await send("office-4");
      const narrowed = skillSpec(rig.llm.requests[3])?.function.description ?? "";
      expect(narrowed).toContain("- pdf-merge:");
      expect(narrowed).not.toContain("pdf-forms");
      expect(toolMessages(rig.llm.requests[4]).at(-1)?.content).toContain(
        'skill "pdf-forms" is not one this conversation\'s scene allows',
      );
    } finally {
      c.close();
    }
  }, 90_000);
});
