/**
 * A shared-memory segment: a memfd (or a POSIX shm object) mapped MAP_SHARED into this
 * process. The mapping is exposed as an ArrayBuffer, so `Atomics` and typed arrays work on it
 * and another process mapping the same fd sees every write.
 *
 * Lifetime contract: after `close()` the ArrayBuffer points at unmapped memory; touching it
 * would fault the process, so `close()` detaches every view this object handed out (`bytes`
 * and `buffer` throw afterwards) and callers must not keep their own views past it.
 */
import { toArrayBuffer } from "bun:ffi";
import { check, cString, shim, SHIM_CLOEXEC, SHIM_PROT_RW } from "./shim.ts";
import { HomedError } from "../protocol/errors.ts";

export class SharedSegment {
  private mapped: ArrayBuffer | null;

  private constructor(
    readonly fd: number,
    readonly size: number,
    readonly addr: number,
    private readonly ownsFd: boolean,
  ) {
    this.mapped = toArrayBuffer(addr, 0, size);
  }

  /**
   * A new anonymous segment of `size` bytes. `inheritable` clears close-on-exec so the fd can be
   * handed to a child (Bun.spawn's stdio array dup2s it to fd 3 either way).
   */
  static create(name: string, size: number, opts: { inheritable?: boolean } = {}): SharedSegment {
    if (!Number.isSafeInteger(size) || size <= 0)
      throw new HomedError("native", `segment size must be a positive integer, got ${size}`);
    const s = shim();
    const fd = check("memfd_create", s.shim_memfd_create(cString(name), size, opts.inheritable ? 0 : SHIM_CLOEXEC));
    return SharedSegment.mapFd(fd, size, true);
  }

  /** Map an fd this process received (e.g. fd 3 from the kernel). `size` defaults to the fd's size. */
  static fromFd(fd: number, size?: number): SharedSegment {
    const actual = check("fd_size", Number(shim().shim_fd_size(fd)));
    const len = size ?? actual;
    if (len <= 0 || len > actual) throw new HomedError("native", `fd ${fd} holds ${actual} bytes; cannot map ${len}`);
    return SharedSegment.mapFd(fd, len, false);
  }

  private static mapFd(fd: number, size: number, ownsFd: boolean): SharedSegment {
    const s = shim();
    const addr = Number(s.shim_mmap(fd, size, SHIM_PROT_RW));
    if (addr < 0) {
      if (ownsFd) s.shim_close(fd);
      check("mmap", addr);
    }
    return new SharedSegment(fd, size, addr, ownsFd);
  }

  get closed(): boolean {
    return this.mapped === null;
  }

  /** The mapping as an ArrayBuffer (for Atomics and typed arrays). */
  get buffer(): ArrayBuffer {
    if (!this.mapped) throw new HomedError("native", "segment is closed");
    return this.mapped;
  }

  /** A fresh byte view over the whole mapping. */
  get bytes(): Uint8Array {
    return new Uint8Array(this.buffer);
  }

  /** Unmap, and close the fd if this segment created it. Idempotent. */
  close(): void {
    if (!this.mapped) return;
    this.mapped = null;
    const s = shim();
    check("munmap", s.shim_munmap(this.addr, this.size));
    if (this.ownsFd) check("close", s.shim_close(this.fd));
  }
}
