/**
 * The notes plugin in dist/homed: a scripted model creates, reads, edits, appends, links, lists,
 * searches and deletes Markdown notes in DATA/notes/, each through the daemon's gate; what a
 * write stored is found again by memory_search (memory/add); bad arguments get clear errors.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startAgentRig } from "../harness/agent-daemon.ts";
import { installBunPlugin } from "../harness/plugins.ts";
import { poll } from "../harness/poll.ts";
import { toolTurn } from "./tool-turns.ts";

describe("notes plugin in the daemon", () => {
  test("every notes tool runs; notes link, back-link and reach memory", async () => {
    using dir = tempDir();
    await Bun.write(
      join(dir.path, "config.toml"),
      `[approval]\nallow = ["notes_*"]\n\n# The owner's own notes: what they say carries no untrusted mark.\n[trust]\ntools = ["notes_*"]\n`,
    );
    // memory/add is for built-in plugins: an installed one is refused.
    const outsider = join(dir.path, "outsider.json");
    installBunPlugin(dir.path, "outsider", "kernel-call.ts", {}, [
      "memory/add",
      JSON.stringify({ key: "planted", text: "planted text" }),
      outsider,
    ]);
    await using rig = await startAgentRig(dir.path, { plugin: false });
    const offered = (await rig.status()).tools.filter((t) => t.name.startsWith("notes_"));
    expect(offered.map((t) => [t.name, t.risk])).toEqual([
      ["notes_append", "write"],
      ["notes_create", "write"],
      ["notes_delete", "write"],
      ["notes_edit", "write"],
      ["notes_links", "read"],
      ["notes_list", "read"],
      ["notes_read", "read"],
      ["notes_search", "read"],
    ]);

    const a = await toolTurn(rig, [
      [
        {
          name: "notes_create",
          arguments: { name: "Sourdough", text: "Feed the starter with rye flour.\nSee [[Baking plan]].\n" },
        },
        { name: "notes_create", arguments: { name: "Baking plan", text: "Saturday: bake the loaf.\n" } },
        { name: "notes_create", arguments: { name: "sourdough", text: "again" } },
      ],
      [
        { name: "notes_read", arguments: { name: "baking PLAN" } },
        { name: "notes_edit", arguments: { name: "Sourdough", find: "rye flour", replace: "spelt flour" } },
        { name: "notes_append", arguments: { name: "Baking plan", text: "Sunday: [[Sourdough]] again." } },
        { name: "notes_edit", arguments: { name: "Sourdough", find: "quinoa", replace: "x" } },
      ],
      [
        { name: "notes_links", arguments: { name: "Sourdough" } },
        { name: "notes_search", arguments: { query: "spelt starter" } },
        { name: "notes_list", arguments: {} },
        { name: "memory_search", arguments: { query: "spelt flour starter" } },
      ],
    ]);
    expect(a.exitCode).toBe(0);
    const [created, created2, dup, read, edited, appended, badEdit, links, found, listed, memory] = a.results;
    expect(created).toContain('Created note "Sourdough"');
    expect(created).toContain("; indexed into memory");
    expect(created).toContain("Not written yet: Baking plan");
    expect(created2).toContain('Created note "Baking plan"');
    expect(dup).toBe('error: a note "Sourdough" exists; change it with notes_edit or notes_append');
    expect(read).toContain("# Baking plan\n\nSaturday: bake the loaf.");
    expect(read).toContain("linked from: Sourdough");
    expect(edited).toContain('Changed note "Sourdough"');
    expect(appended).toContain('Appended to note "Baking plan"');
    expect(badEdit).toBe('error: "quinoa" is not in the note "Sourdough"; read it with notes_read');
    expect(links).toContain("- [[Baking plan]]");
    expect(links).toContain("Backlinks (notes linking to it): Baking plan");
    expect(found).toContain("1 note match:\n- Sourdough\n    Feed the starter with spelt flour.");
    expect(listed).toMatch(/^2 notes:\n- (Baking plan|Sourdough) · \d+ bytes/);
    expect(memory).toContain("notes:Sourdough");
    // Said to be the notes plugin's, not the assistant's.
    expect(memory).toContain('score 1.00 · notes Sourdough: note "Sourdough" Feed the starter with spelt flour.');
    expect(memory).toContain("spelt flour");
    expect(readFileSync(join(dir.path, "notes", "Sourdough.md"), "utf8")).toBe(
      "Feed the starter with spelt flour.\nSee [[Baking plan]].\n",
    );
    expect(readFileSync(join(dir.path, "notes", "Baking plan.md"), "utf8")).toBe(
      "Saturday: bake the loaf.\nSunday: [[Sourdough]] again.\n",
    );

    const b = await toolTurn(rig, [
      [
        { name: "notes_delete", arguments: { name: "Sourdough" } },
        { name: "notes_read", arguments: { name: "Sourdough" } },
        { name: "notes_create", arguments: { name: "../escape", text: "x" } },
        { name: "notes_edit", arguments: { name: "Baking plan", text: "all new", find: "Saturday" } },
      ],
    ]);
    const [deleted, gone, badName, both] = b.results;
    expect(deleted).toContain('Deleted note "Sourdough". Still linking to it: Baking plan.');
    expect(gone).toContain('error: there is no note "Sourdough"');
    expect(badName).toStartWith("error: invalid arguments for notes_create: /name must match pattern");
    expect(both).toBe("error: give either text (the whole note) or find and replace, not both");
    expect(existsSync(join(dir.path, "notes", "Sourdough.md"))).toBe(false);
    // A name in any script (and with the signs a note name may have) is indexed too.
    const z = await toolTurn(rig, [
      [{ name: "notes_create", arguments: { name: "Tom's Café (六月)", text: "买了新的铃铛。" } }],
    ]);
    expect(z.results[0]).toContain("; indexed into memory");
    const refused = await poll(
      async () => (existsSync(outsider) ? readFileSync(outsider, "utf8") : ""),
      (t) => t !== "",
      { what: "the outsider plugin's memory/add answer" },
    );
    expect(JSON.parse(refused)).toEqual({
      error: "adding to memory is reserved to built-in plugins; outsider is not one",
    });
  }, 60_000);
});
