/**
 * bun:ffi binding of native/shim.c. This folder (src/ipc) is the only code that touches
 * bun:ffi; everything else uses SharedSegment and the typed wrappers below.
 *
 * The library is embedded into the compiled binary (`with { type: "file" }`); under `bun run`
 * and `bun test` the same import resolves to dist/native/libhomed-shim.so, built by `make`.
 * scripts/build.ts swaps the file for the arm64 build when cross-compiling.
 */
import { dlopen, FFIType } from "bun:ffi";
import { constants } from "node:os";
import { join } from "node:path";
import { HomedError } from "../protocol/errors.ts";
import shimPath from "../../dist/native/libhomed-shim.so" with { type: "file" };

/** The ABI version this binding was written for (SHIM_ABI_VERSION in native/shim.h). */
export const SHIM_ABI_VERSION = 3;

export const SHIM_CLOEXEC = 1;
export const SHIM_PROT_READ = 1;
export const SHIM_PROT_RW = 3;
export const SHIM_LOCK_EX_NB = 1;
export const SHIM_LOCK_UN = 2;
export const SHIM_BENEATH_DIR = 1;
export const SHIM_BENEATH_READ = 2;
export const SHIM_BENEATH_WALK = 0x100;

const { i32, i64, i64_fast, u32, u64, ptr } = FFIType;

const symbols = {
  shim_abi_version: { args: [], returns: i32 },
  shim_memfd_create: { args: [ptr, i64, u32], returns: i32 },
  shim_shm_open: { args: [ptr, i32, u32, u32], returns: i32 },
  shim_shm_unlink: { args: [ptr], returns: i32 },
  shim_fd_size: { args: [i32], returns: i64_fast },
  shim_fd_truncate: { args: [i32, i64], returns: i32 },
  shim_mmap: { args: [i32, i64, i32], returns: i64_fast },
  shim_munmap: { args: [i64, i64], returns: i32 },
  shim_close: { args: [i32], returns: i32 },
  shim_set_cloexec: { args: [i32, i32], returns: i32 },
  shim_set_nonblock: { args: [i32, i32], returns: i32 },
  shim_socketpair: { args: [ptr], returns: i32 },
  shim_flock: { args: [i32, i32], returns: i32 },
  shim_atomic_load32: { args: [i64], returns: i64_fast },
  shim_atomic_store32: { args: [i64, u32], returns: i64_fast },
  shim_atomic_add32: { args: [i64, u32], returns: i64_fast },
  shim_atomic_cas32: { args: [i64, u32, u32], returns: i64_fast },
  shim_atomic_load64: { args: [i64, ptr], returns: i32 },
  shim_atomic_store64: { args: [i64, u64], returns: i32 },
  shim_atomic_add64: { args: [i64, u64, ptr], returns: i32 },
  shim_atomic_cas64: { args: [i64, u64, u64, ptr], returns: i32 },
  shim_futex_wait: { args: [i64, u32, i64], returns: i32 },
  shim_futex_wake: { args: [i64, i32], returns: i32 },
  shim_open_beneath: { args: [i32, ptr, i32], returns: i32 },
} as const;

/**
 * Where the library is: an absolute path in the compiled binary and from source; in the SDK's
 * npm package (scripts/build-sdk.ts) the bundler writes "./libhomed-shim-<hash>.so", relative to
 * the bundle rather than to whatever directory the plugin runs in.
 */
const shimFile = shimPath.startsWith(".") ? join(import.meta.dir, shimPath) : shimPath;

type ShimSymbols = ReturnType<typeof dlopen<typeof symbols>>["symbols"];

let loaded: ShimSymbols | null = null;

/** The native functions, loaded on first use. Throws HomedError("native") if unusable. */
export function shim(): ShimSymbols {
  if (loaded) return loaded;
  let lib: ReturnType<typeof dlopen<typeof symbols>>;
  try {
    lib = dlopen(shimFile, symbols);
  } catch (err) {
    throw new HomedError(
      "native",
      `cannot load the native shim from ${shimFile}: ${(err as Error).message}`,
      {},
      { cause: err },
    );
  }
  const version = lib.symbols.shim_abi_version();
  if (version !== SHIM_ABI_VERSION) {
    throw new HomedError("native", `native shim ABI ${version} does not match ${SHIM_ABI_VERSION}; rebuild with make`);
  }
  loaded = lib.symbols;
  return loaded;
}

const errnoNames = new Map<number, string>();
for (const [name, num] of Object.entries(constants.errno)) {
  if (!errnoNames.has(num)) errnoNames.set(num, name);
}

/** `EBADF` for 9, and so on. */
export function errnoName(errno: number): string {
  return errnoNames.get(errno) ?? `errno ${errno}`;
}

/** A failed native call: `errno` is positive, `message` names the call and the errno. */
export class ShimError extends HomedError<"native"> {
  constructor(
    readonly call: string,
    readonly errno: number,
  ) {
    super("native", `${call}: ${errnoName(errno)}`, { call, errno, errnoName: errnoName(errno) });
  }
}

/** Return `r` if it is a success (>= 0), else throw a ShimError for `call`. */
export function check(call: string, r: number): number {
  if (r < 0) throw new ShimError(call, -r);
  return r;
}

export function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`, "utf8");
}

/** Take an exclusive advisory lock on `fd` without waiting. False if someone else holds it. */
export function tryLockFile(fd: number): boolean {
  const r = shim().shim_flock(fd, SHIM_LOCK_EX_NB);
  if (r === -(constants.errno.EWOULDBLOCK ?? 11) || r === -(constants.errno.EAGAIN ?? 11)) return false;
  check("flock", r);
  return true;
}

/**
 * A connected unix stream socketpair, both ends close-on-exec. The caller owns both fds and
 * must close each exactly once (`closeFd`). `nonBlockingFirst` makes `[0]` non-blocking (the
 * end this process keeps; `[1]` is usually dup2-ed into a child that expects a blocking fd).
 */
export function socketPair(opts: { nonBlockingFirst?: boolean } = {}): [number, number] {
  const s = shim();
  const out = new Int32Array(2);
  check("socketpair", s.shim_socketpair(out));
  const pair: [number, number] = [out[0] as number, out[1] as number];
  if (opts.nonBlockingFirst) {
    const r = s.shim_set_nonblock(pair[0], 1);
    if (r < 0) {
      s.shim_close(pair[0]);
      s.shim_close(pair[1]);
      check("set_nonblock", r);
    }
  }
  return pair;
}

/** Close an fd this process owns. */
export function closeFd(fd: number): void {
  check("close", shim().shim_close(fd));
}

/**
 * Open `path` (relative) beneath the directory `dirFd` in one resolution that cannot leave it
 * (native/shim.h, shim_open_beneath): "dir" opens a folder to act in, "read" any inode for the
 * caller to fstat. The final component is never followed. `walk` forces the component walk the
 * shim falls back to without openat2; HOMED_OPEN_BENEATH=walk in the environment forces it for
 * the whole process (tests of the fallback only). Throws ShimError (EXDEV or ELOOP for a way
 * out, ENOENT, ENOTDIR, …); the caller owns and closes the fd.
 */
export function openBeneath(dirFd: number, path: string, mode: "dir" | "read", walk = forcedWalk()): number {
  const how = (mode === "dir" ? SHIM_BENEATH_DIR : SHIM_BENEATH_READ) | (walk ? SHIM_BENEATH_WALK : 0);
  return check("open_beneath", shim().shim_open_beneath(dirFd, cString(path), how));
}

let walkForced: boolean | undefined;
function forcedWalk(): boolean {
  walkForced ??= process.env.HOMED_OPEN_BENEATH === "walk";
  return walkForced;
}
