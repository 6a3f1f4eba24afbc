/**
 * shim_open_beneath (native/shim.c, through src/ipc/shim.ts openBeneath) against a real temp
 * dir, in both of its ways: openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, and the
 * O_NOFOLLOW component walk used where the kernel has no openat2. Every way out of the folder —
 * an absolute path, `..`, an absolute symlink, a symlink climbing with `..`, a chain of links that
 * ends outside, a /proc magic link — is refused, and no descriptor is left open by a refusal.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { errnoName, openBeneath, ShimError, shim, cString, SHIM_BENEATH_DIR } from "../../src/ipc/shim.ts";
import { tempDir } from "../harness/binary.ts";

let dir: ReturnType<typeof tempDir>;
let root: string;
let rootFd: number;

beforeEach(() => {
  dir = tempDir("homed-beneath-");
  root = join(dir.path, "root");
  const outside = join(dir.path, "outside");
  mkdirSync(join(root, "sub/deeper"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "secret\n");
  writeFileSync(join(root, "sub/deeper/f.txt"), "inside\n");
  symlinkSync(outside, join(root, "abs")); // absolute, out
  symlinkSync("../outside", join(root, "up")); // relative, climbs out
  symlinkSync("sub", join(root, "alias")); // relative, stays in
  symlinkSync("hop2", join(root, "hop1")); // a chain: hop1 → hop2 → ../outside
  symlinkSync("../outside", join(root, "hop2"));
  symlinkSync("/proc/self/root", join(root, "magic")); // a magic link, by an absolute symlink
  symlinkSync("sub/deeper/f.txt", join(root, "file-link"));
  rootFd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
});
afterEach(() => {
  closeSync(rootFd);
  dir[Symbol.dispose]();
});

/** The errno name openBeneath fails with, or "opened" (the fd is closed). */
function attempt(path: string, mode: "dir" | "read", walk: boolean, from = rootFd): string {
  try {
    closeSync(openBeneath(from, path, mode, walk));
    return "opened";
  } catch (err) {
    expect(err).toBeInstanceOf(ShimError);
    return errnoName((err as ShimError).errno);
  }
}

const openFds = () => readdirSync("/proc/self/fd").length;

for (const walk of [false, true]) {
  describe(walk ? "the O_NOFOLLOW walk" : "openat2", () => {
    test("a path inside opens, as a folder or as a file to read, and is what lies there", () => {
      const fd = openBeneath(rootFd, "sub/deeper/f.txt", "read", walk);
      try {
        const buf = Buffer.alloc(16);
        expect(buf.subarray(0, readSync(fd, buf)).toString()).toBe("inside\n");
      } finally {
        closeSync(fd);
      }
      const folder = openBeneath(rootFd, "sub/deeper", "dir", walk);
      try {
        expect(fstatSync(folder).isDirectory()).toBe(true);
        expect(readdirSync(`/proc/self/fd/${folder}`)).toEqual(["f.txt"]);
      } finally {
        closeSync(folder);
      }
      expect(attempt("", "dir", walk)).toBe("opened");
      expect(attempt(".", "dir", walk)).toBe("opened");
    });

    test("an absolute path and a `..` out are refused", () => {
      expect(attempt(join(root, "sub"), "dir", walk)).toBe("EXDEV");
      expect(attempt("../outside/secret.txt", "read", walk)).toBe("EXDEV");
      expect(attempt("sub/../../outside", "dir", walk)).toBe("EXDEV");
    });

    test("an absolute symlink, a symlink climbing out and a chain ending outside are refused", () => {
      // openat2 says EXDEV (the resolution would leave); the walk follows no link at all.
      const out = walk ? "ELOOP" : "EXDEV";
      expect(attempt("abs/secret.txt", "read", walk)).toBe(out);
      expect(attempt("abs", "dir", walk)).toBe("ELOOP"); // the last name is never followed
      expect(attempt("up/secret.txt", "read", walk)).toBe(out);
      expect(attempt("hop1/secret.txt", "read", walk)).toBe(out);
    });

    test("a /proc magic link is refused, by an absolute symlink or straight through /proc", () => {
      expect(attempt("magic/etc", "dir", walk)).toBe(walk ? "ELOOP" : "EXDEV");
      // With / as the folder the way is beneath it: only RESOLVE_NO_MAGICLINKS (or the walk's
      // refusal of /proc/self, a symlink) stops /proc/self/root, /proc/self/cwd and fd links.
      const slash = openSync("/", constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        expect(attempt("proc/self/root/etc", "dir", walk, slash)).toBe("ELOOP");
        expect(attempt(`proc/${process.pid}/root/etc`, "dir", walk, slash)).toBe("ELOOP");
        expect(attempt(`proc/${process.pid}/fd/${rootFd}/sub`, "dir", walk, slash)).toBe("ELOOP");
        expect(attempt(`proc/${process.pid}/cwd`, "dir", walk, slash)).toBe("ELOOP");
      } finally {
        closeSync(slash);
      }
    });

    test("a symlink that stays inside: openat2 follows it on the way, the walk refuses it; the last name is never followed", () => {
      expect(attempt("alias/deeper/f.txt", "read", walk)).toBe(walk ? "ELOOP" : "opened");
      expect(attempt("file-link", "read", walk)).toBe("ELOOP");
      expect(attempt("alias", "dir", walk)).toBe("ELOOP");
    });

    test("what is missing or not a folder says so", () => {
      expect(attempt("sub/nope/f.txt", "read", walk)).toBe("ENOENT");
      expect(attempt("sub/deeper/f.txt/x", "read", walk)).toBe("ENOTDIR");
      expect(attempt("sub/deeper/f.txt", "dir", walk)).toBe("ENOTDIR");
    });

    test("refusals leave no descriptor open", () => {
      const before = openFds();
      for (let i = 0; i < 200; i++) {
        attempt("hop1/secret.txt", "read", walk);
        attempt("abs", "dir", walk);
        attempt("sub/deeper/f.txt", "dir", walk);
        attempt("sub/nope/f.txt", "read", walk);
      }
      expect(openFds()).toBe(before);
    });
  });
}

test("a bad mode or a bad folder descriptor is an error, not a crash", () => {
  expect(shim().shim_open_beneath(rootFd, cString("sub"), 77)).toBe(-22); // EINVAL
  expect(shim().shim_open_beneath(987654, cString("sub"), SHIM_BENEATH_DIR)).toBe(-9); // EBADF
});
