/**
 * Links the files tools promise to follow still work now that paths are opened beneath their
 * root, through openat2 and through the O_NOFOLLOW walk the shim falls back to (which follows
 * no link itself: the tools hand it the real path the check resolved). Black box: the files
 * plugin of the compiled binary, driven over stdio like the kernel does.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../harness/binary.ts";
import { startMediaPlugin } from "../harness/media-rig.ts";

let dir: ReturnType<typeof tempDir>;
let ws: string;
let other: string;
let outside: string;

beforeEach(() => {
  dir = tempDir("homed-files-links-");
  ws = join(dir.path, "workspace");
  other = join(dir.path, "notes");
  outside = join(dir.path, "outside");
  for (const d of [join(ws, "sub/deep"), other, outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, "real.txt"), "inside\n");
  writeFileSync(join(ws, "sub/deep/d.txt"), "deep\n");
  writeFileSync(join(other, "n.md"), "note\n");
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  symlinkSync("real.txt", join(ws, "alias.txt")); // a file link that stays inside
  symlinkSync("sub/deep", join(ws, "shortcut")); // a folder link that stays inside
  symlinkSync(other, join(ws, "notes")); // into the other root
  symlinkSync(outside, join(ws, "out")); // out of every root
});
afterEach(() => dir[Symbol.dispose]());

for (const way of ["openat2", "walk"] as const) {
  describe(way, () => {
    test("links inside a root, and from one root into another, are followed; a link out is refused", async () => {
      const env: Record<string, string> = way === "walk" ? { HOMED_OPEN_BENEATH: "walk" } : {};
      await using rig = await startMediaPlugin(dir.path, {}, ["workspace", other], process.env.PATH, "files", env);
      const ok = async (tool: string, args: Record<string, unknown>) => {
        const a = await rig.tool(tool, args);
        expect({ tool, isError: a.isError, content: a.content }).toMatchObject({ isError: false });
        return a.content;
      };
      const refused = async (tool: string, args: Record<string, unknown>) => {
        const a = await rig.tool(tool, args);
        expect(a.isError).toBe(true);
        return a.content;
      };
      expect(await ok("files_read", { path: "alias.txt" })).toBe("     1\tinside");
      await ok("files_write", { path: "alias.txt", content: "changed\n" });
      expect(readFileSync(join(ws, "real.txt"), "utf8")).toBe("changed\n");
      await ok("files_edit", { path: "shortcut/d.txt", old_string: "deep", new_string: "deeper" });
      expect(readFileSync(join(ws, "sub/deep/d.txt"), "utf8")).toBe("deeper\n");
      expect(await ok("files_list", { path: "shortcut" })).toContain("d.txt");
      expect(await ok("files_read", { path: "notes/n.md" })).toBe("     1\tnote");
      await ok("files_write", { path: "notes/new/today.md", content: "today\n" });
      expect(readFileSync(join(other, "new/today.md"), "utf8")).toBe("today\n");
      await ok("files_move", { from: "notes/new/today.md", to: "shortcut/today.md" });
      expect(readFileSync(join(ws, "sub/deep/today.md"), "utf8")).toBe("today\n");
      await ok("files_delete", { path: "shortcut/today.md" });
      expect(existsSync(join(ws, "sub/deep/today.md"))).toBe(false);

      const out = `is outside the allowed roots (${realpathSync(ws)}, ${realpathSync(other)})`;
      expect(await refused("files_read", { path: "out/secret.txt" })).toContain(out);
      expect(await refused("files_write", { path: "out/new.txt", content: "x" })).toContain(out);
      expect(await refused("files_edit", { path: "out/secret.txt", old_string: "secret", new_string: "x" })).toContain(
        out,
      );
      expect(await refused("files_delete", { path: "out/secret.txt" })).toContain(out);
      expect(await refused("files_move", { from: "out/secret.txt", to: "stolen.txt" })).toContain(out);
      expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
      expect(existsSync(join(outside, "new.txt"))).toBe(false);
    });
  });
}
