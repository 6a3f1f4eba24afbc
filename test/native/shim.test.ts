/**
 * The native shim through its public wrappers (src/ipc/shim.ts, src/ipc/shared-memory.ts):
 * two real processes share one segment, and every function's error path returns -errno.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, constants as fsConstants, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { SharedSegment } from "../../src/ipc/shared-memory.ts";
import {
  closeFd,
  cString,
  errnoName,
  shim,
  ShimError,
  SHIM_LOCK_EX_NB,
  SHIM_PROT_RW,
  socketPair,
  tryLockFile,
} from "../../src/ipc/shim.ts";
import { ROOT, tempDir } from "../harness/binary.ts";

const E = constants.errno;
const BAD_FD = 987654;

describe("two processes share a segment passed as fd 3", () => {
  test("each sees the other's writes, atomics and futex wake cross the boundary", async () => {
    const seg = SharedSegment.create("homed-test", 1 << 20, { inheritable: true });
    const words = new Int32Array(seg.buffer);
    const msg = new TextEncoder().encode("hello from parent");
    seg.bytes.set(msg, 64);
    words[1] = msg.length;

    const child = Bun.spawn([process.execPath, join(ROOT, "test/fixtures/shm-child.ts")], {
      stdio: ["ignore", "pipe", "pipe", seg.fd],
    });
    const s = shim();
    // Add to the same counter as the child, at the same time.
    while (Atomics.load(words, 5) === 0 && child.exitCode === null) await Bun.sleep(1);
    for (let i = 0; i < 20000; i++) s.shim_atomic_add32(seg.addr + 16, 1);
    // Wake the child's futex: retry until the kernel reports one waiter woken.
    const deadline = Date.now() + 10_000;
    let woken = 0;
    while (woken === 0 && Date.now() < deadline && child.exitCode === null) {
      woken = s.shim_futex_wake(seg.addr + 32, 1);
      if (woken === 0) await Bun.sleep(2);
    }
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(woken).toBe(1);
    expect(out).toBe("read hello from parent\nadded\nfutex 0\n");
    const replyLen = Atomics.load(words, 2);
    expect(new TextDecoder().decode(seg.bytes.subarray(1024, 1024 + replyLen))).toBe(`hello from child ${child.pid}`);
    expect(s.shim_atomic_load32(seg.addr + 16)).toBe(40000);
    seg.close();
  });
});

describe("every shim function reports errors as -errno", () => {
  const s = shim();

  test("memfd_create: bad size, then a good one", () => {
    expect(s.shim_memfd_create(cString("x"), -1, 0)).toBe(-E.EINVAL!);
    const fd = s.shim_memfd_create(cString("x"), 4096, 1);
    expect(fd).toBeGreaterThan(2);
    expect(s.shim_fd_size(fd)).toBe(4096);
    expect(s.shim_close(fd)).toBe(0);
  });

  test("fd_size, fd_truncate, close, set_cloexec, flock on a bad fd", () => {
    expect(s.shim_fd_size(BAD_FD)).toBe(-E.EBADF!);
    expect(s.shim_fd_truncate(BAD_FD, 10)).toBe(-E.EBADF!);
    expect(s.shim_close(BAD_FD)).toBe(-E.EBADF!);
    expect(s.shim_set_cloexec(BAD_FD, 1)).toBe(-E.EBADF!);
    expect(s.shim_set_nonblock(BAD_FD, 1)).toBe(-E.EBADF!);
    expect(s.shim_flock(BAD_FD, SHIM_LOCK_EX_NB)).toBe(-E.EBADF!);
  });

  test("fd_truncate and mmap with a bad size; mmap with a bad fd or prot", () => {
    const fd = s.shim_memfd_create(cString("y"), 4096, 1);
    expect(s.shim_fd_truncate(fd, -5)).toBe(-E.EINVAL!);
    expect(s.shim_mmap(fd, 0, SHIM_PROT_RW)).toBe(-E.EINVAL!);
    expect(s.shim_mmap(fd, 4096, 99)).toBe(-E.EINVAL!);
    expect(s.shim_mmap(BAD_FD, 4096, SHIM_PROT_RW)).toBe(-E.EBADF!);
    expect(s.shim_fd_truncate(fd, 8192)).toBe(0);
    expect(s.shim_fd_size(fd)).toBe(8192);
    s.shim_close(fd);
  });

  test("munmap with a null address or bad length", () => {
    expect(s.shim_munmap(0, 4096)).toBe(-E.EINVAL!);
    expect(s.shim_munmap(4096, 0)).toBe(-E.EINVAL!);
  });

  test("set_cloexec reports the previous state", () => {
    const fd = s.shim_memfd_create(cString("z"), 0, 1);
    expect(s.shim_set_cloexec(fd, 0)).toBe(1);
    expect(s.shim_set_cloexec(fd, 1)).toBe(0);
    s.shim_close(fd);
  });

  test("socketpair: a null out-pointer is EINVAL; the pair is connected, close-on-exec, and only [0] non-blocking", () => {
    expect(s.shim_socketpair(null)).toBe(-E.EINVAL!);
    const [a, b] = socketPair({ nonBlockingFirst: true });
    const flags = (fd: number) =>
      parseInt(/flags:\s+(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))![1] as string, 8);
    expect(flags(a) & fsConstants.O_NONBLOCK).not.toBe(0);
    expect(flags(b) & fsConstants.O_NONBLOCK).toBe(0);
    expect(s.shim_set_cloexec(a, 1)).toBe(1);
    expect(s.shim_set_cloexec(b, 1)).toBe(1);
    writeSync(b, new Uint8Array([7]));
    const got = new Uint8Array(4);
    expect(readSync(a, got)).toBe(1);
    expect(got[0]).toBe(7);
    expect(() => readSync(a, got)).toThrow("EAGAIN");
    expect(s.shim_set_nonblock(a, 0)).toBe(1);
    expect(s.shim_set_nonblock(a, 0)).toBe(0);
    closeFd(a);
    closeFd(b);
    expect(() => closeFd(a)).toThrow("close: EBADF");
  });

  test("shm_open/unlink by name: missing, duplicate, and the round trip", () => {
    const name = `/homed-test-${process.pid}-${Date.now()}`;
    expect(s.shim_shm_open(cString(name), 0, 0o600, 1)).toBe(-E.ENOENT!);
    expect(s.shim_shm_unlink(cString(name))).toBe(-E.ENOENT!);
    const fd = s.shim_shm_open(cString(name), 1, 0o600, 1);
    expect(fd).toBeGreaterThan(2);
    expect(s.shim_shm_open(cString(name), 1, 0o600, 1)).toBe(-E.EEXIST!);
    const again = s.shim_shm_open(cString(name), 0, 0o600, 0);
    expect(again).toBeGreaterThan(2);
    expect(s.shim_shm_unlink(cString(name))).toBe(0);
    s.shim_close(fd);
    s.shim_close(again);
  });

  test("atomics on a null or misaligned address, and their values", () => {
    const seg = SharedSegment.create("atomics", 4096);
    const out = new BigUint64Array(1);
    for (const addr of [0, seg.addr + 1]) {
      expect(s.shim_atomic_load32(addr)).toBe(-E.EINVAL!);
      expect(s.shim_atomic_store32(addr, 1)).toBe(-E.EINVAL!);
      expect(s.shim_atomic_add32(addr, 1)).toBe(-E.EINVAL!);
      expect(s.shim_atomic_cas32(addr, 0, 1)).toBe(-E.EINVAL!);
    }
    for (const addr of [0, seg.addr + 4]) {
      expect(s.shim_atomic_load64(addr, out)).toBe(-E.EINVAL!);
      expect(s.shim_atomic_store64(addr, 1n)).toBe(-E.EINVAL!);
      expect(s.shim_atomic_add64(addr, 1n, out)).toBe(-E.EINVAL!);
      expect(s.shim_atomic_cas64(addr, 0n, 1n, out)).toBe(-E.EINVAL!);
    }
    // 32-bit: full unsigned range survives the -errno encoding.
    expect(s.shim_atomic_store32(seg.addr, 0xffffffff)).toBe(0);
    expect(s.shim_atomic_load32(seg.addr)).toBe(0xffffffff);
    expect(s.shim_atomic_add32(seg.addr, 2)).toBe(0xffffffff);
    expect(s.shim_atomic_load32(seg.addr)).toBe(1);
    expect(s.shim_atomic_cas32(seg.addr, 7, 9)).toBe(1); // fails: returns what it saw
    expect(s.shim_atomic_cas32(seg.addr, 1, 9)).toBe(1); // succeeds
    expect(new Uint32Array(seg.buffer)[0]).toBe(9);
    // 64-bit: values past 2^53 and the top bit.
    const a64 = seg.addr + 8;
    expect(s.shim_atomic_store64(a64, 0xfffffffffffffff0n)).toBe(0);
    expect(s.shim_atomic_add64(a64, 0x20n, out)).toBe(0);
    expect(out[0]).toBe(0xfffffffffffffff0n);
    expect(s.shim_atomic_load64(a64, out)).toBe(0);
    expect(out[0]).toBe(0x10n);
    expect(s.shim_atomic_cas64(a64, 0x10n, 1n << 62n, out)).toBe(0);
    expect(new BigUint64Array(seg.buffer)[1]).toBe(1n << 62n);
    seg.close();
  });

  test("futex: value mismatch, timeout, bad address, bad count", () => {
    const seg = SharedSegment.create("futex", 4096);
    expect(s.shim_futex_wait(seg.addr, 1, 1_000_000)).toBe(-E.EAGAIN!);
    expect(s.shim_futex_wait(seg.addr, 0, 1_000_000)).toBe(-E.ETIMEDOUT!);
    expect(s.shim_futex_wait(seg.addr + 2, 0, 1)).toBe(-E.EINVAL!);
    expect(s.shim_futex_wake(0, 1)).toBe(-E.EINVAL!);
    expect(s.shim_futex_wake(seg.addr, -1)).toBe(-E.EINVAL!);
    expect(s.shim_futex_wake(seg.addr, 1)).toBe(0);
    seg.close();
  });

  test("flock: a held lock is refused to a second fd, a bad op is EINVAL", () => {
    using dir = tempDir();
    const file = join(dir.path, "lock");
    const a = openSync(file, "a+");
    const b = openSync(file, "a+");
    expect(tryLockFile(a)).toBe(true);
    expect(tryLockFile(b)).toBe(false);
    expect(s.shim_flock(a, 42)).toBe(-E.EINVAL!);
    closeSync(a);
    expect(tryLockFile(b)).toBe(true);
    closeSync(b);
  });

  test("SharedSegment turns failures into ShimError with the errno's name", () => {
    expect(() => SharedSegment.fromFd(BAD_FD)).toThrow(ShimError);
    expect(() => SharedSegment.fromFd(BAD_FD)).toThrow("fd_size: EBADF");
    expect(() => SharedSegment.create("bad", 0)).toThrow("positive integer");
    const seg = SharedSegment.create("closing", 4096);
    seg.close();
    seg.close();
    expect(seg.closed).toBe(true);
    expect(() => seg.bytes).toThrow("segment is closed");
    expect(errnoName(E.EBADF!)).toBe("EBADF");
  });
});
