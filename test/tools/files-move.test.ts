/**
 * files_move and files_delete against a real temp dir: renames and deletes inside the roots,
 * symlinks handled as links (their targets, even outside, untouched), and every way out refused.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Confinement } from "../../plugins/sdk/confine.ts";
import { filesDelete, filesMove } from "../../plugins/files/move.ts";
import { tempDir } from "../harness/binary.ts";
import { refusal } from "./files-refusal.ts";

let dir: ReturnType<typeof tempDir>;
let ws: string;
let outside: string;
let c: Confinement;

beforeEach(() => {
  dir = tempDir("homed-files-move-");
  c = new Confinement(["workspace"], dir.path);
  ws = c.workspace().real;
  outside = join(dir.path, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "keep.txt"), "precious");
});
afterEach(() => dir[Symbol.dispose]());

describe("files_move", () => {
  test("renames a file into new folders, replaces only with overwrite, moves folders", async () => {
    writeFileSync(join(ws, "a.txt"), "A");
    expect(filesMove(c, { from: "a.txt", to: "deep/er/b.txt" })).toBe("moved file a.txt → deep/er/b.txt");
    expect(readFileSync(join(ws, "deep/er/b.txt"), "utf8")).toBe("A");
    writeFileSync(join(ws, "c.txt"), "C");
    expect(await refusal(() => filesMove(c, { from: "c.txt", to: "deep/er/b.txt" }))).toContain("pass overwrite: true");
    expect(filesMove(c, { from: "c.txt", to: "deep/er/b.txt", overwrite: true })).toContain("(replaced a file)");
    expect(readFileSync(join(ws, "deep/er/b.txt"), "utf8")).toBe("C");
    expect(filesMove(c, { from: "deep", to: "shallow" })).toBe("moved folder deep → shallow");
    expect(await refusal(() => filesMove(c, { from: "shallow", to: "shallow/er/x" }))).toContain(
      "cannot move into itself",
    );
    expect(await refusal(() => filesMove(c, { from: "nope.txt", to: "x.txt" }))).toContain("does not exist");
    mkdirSync(join(ws, "box"));
    writeFileSync(join(ws, "d.txt"), "D");
    expect(await refusal(() => filesMove(c, { from: "d.txt", to: "box" }))).toContain("existing folder");
  });

  test("nothing moves in or out of the roots, and a root is never moved", async () => {
    writeFileSync(join(ws, "mine.txt"), "M");
    expect(await refusal(() => filesMove(c, { from: "mine.txt", to: "../outside/mine.txt" }))).toContain("outside");
    expect(await refusal(() => filesMove(c, { from: "../outside/keep.txt", to: "stolen.txt" }))).toContain("outside");
    expect(await refusal(() => filesMove(c, { from: join(outside, "keep.txt"), to: "stolen.txt" }))).toContain(
      "outside",
    );
    expect(await refusal(() => filesMove(c, { from: ".", to: "elsewhere" }))).toContain("root itself");
    // Through a symlinked folder that leads out: refused on both sides.
    symlinkSync(outside, join(ws, "door"));
    expect(await refusal(() => filesMove(c, { from: "door/keep.txt", to: "stolen.txt" }))).toContain("outside");
    expect(await refusal(() => filesMove(c, { from: "mine.txt", to: "door/mine.txt" }))).toContain("outside");
    // The link itself moves as a link; what it points to stays where it is.
    expect(filesMove(c, { from: "door", to: "porch" })).toBe("moved symlink door → porch");
    expect(lstatSync(join(ws, "porch")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("precious");
    expect(existsSync(join(ws, "mine.txt"))).toBe(true);
  });
});

describe("files_delete", () => {
  test("deletes files, empty folders, and full ones only with recursive", async () => {
    writeFileSync(join(ws, "a.txt"), "12345");
    expect(filesDelete(c, { path: "a.txt" })).toBe("deleted file a.txt (5 B)");
    mkdirSync(join(ws, "empty"));
    expect(filesDelete(c, { path: "empty" })).toBe("deleted folder empty");
    mkdirSync(join(ws, "full/sub"), { recursive: true });
    writeFileSync(join(ws, "full/x.txt"), "x");
    expect(await refusal(() => filesDelete(c, { path: "full" }))).toContain("pass recursive: true");
    expect(filesDelete(c, { path: "full", recursive: true })).toBe("deleted folder full and its 2 entries");
    expect(existsSync(join(ws, "full"))).toBe(false);
    expect(await refusal(() => filesDelete(c, { path: "gone.txt" }))).toContain("does not exist");
  });

  test("a link is deleted as a link; nothing outside, and no root, can be deleted", async () => {
    symlinkSync(join(outside, "keep.txt"), join(ws, "link.txt"));
    symlinkSync(outside, join(ws, "door"));
    mkdirSync(join(ws, "tree"));
    symlinkSync(outside, join(ws, "tree/door"));
    expect(filesDelete(c, { path: "link.txt" })).toBe("deleted symlink link.txt");
    expect(await refusal(() => filesDelete(c, { path: "door/keep.txt" }))).toContain("outside");
    expect(await refusal(() => filesDelete(c, { path: "../outside/keep.txt" }))).toContain("outside");
    expect(await refusal(() => filesDelete(c, { path: join(outside, "keep.txt") }))).toContain("outside");
    expect(await refusal(() => filesDelete(c, { path: "." }))).toContain("root itself");
    expect(await refusal(() => filesDelete(c, { path: "/proc/self/environ" }))).toContain("outside");
    // recursive removes the links inside a folder, never what they point to.
    expect(filesDelete(c, { path: "tree", recursive: true })).toBe("deleted folder tree and its 1 entry");
    expect(filesDelete(c, { path: "door" })).toBe("deleted symlink door");
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("precious");
  });
});
