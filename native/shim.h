/*
 * homed native shim — the whole ABI the TypeScript side reaches through bun:ffi.
 *
 * Contract for every function:
 *   - never aborts, never prints;
 *   - failure is a negative errno (e.g. -EBADF), success is >= 0;
 *   - addresses cross the boundary as int64 (user-space addresses fit in 47 bits, so a valid
 *     address is always positive and distinguishable from -errno);
 *   - 64-bit atomic values travel through an out-pointer, because every int64 bit pattern is a
 *     valid value and none can be reserved for errors.
 *
 * Bump SHIM_ABI_VERSION whenever a signature or meaning changes; src/ipc/shim.ts refuses a
 * library whose version differs from the one it was written for.
 */
#ifndef HOMED_SHIM_H
#define HOMED_SHIM_H

#include <stdint.h>

#define SHIM_ABI_VERSION 3

/* flags for shim_memfd_create / shim_shm_open */
#define SHIM_CLOEXEC 1u   /* the fd is not inherited by exec'd children unless cleared */

/* prot for shim_mmap */
#define SHIM_PROT_READ 1
#define SHIM_PROT_RW 3

/* op for shim_flock */
#define SHIM_LOCK_EX_NB 1   /* exclusive, fail with -EWOULDBLOCK if held */
#define SHIM_LOCK_UN 2

/* how for shim_open_beneath (a mode, optionally or-ed with SHIM_BENEATH_WALK) */
#define SHIM_BENEATH_DIR 1      /* a directory, O_RDONLY | O_DIRECTORY */
#define SHIM_BENEATH_READ 2     /* any inode, O_RDONLY | O_NONBLOCK | O_NOCTTY (the caller fstats it) */
#define SHIM_BENEATH_WALK 0x100 /* skip openat2 and use the component walk (tests of the fallback) */

int32_t shim_abi_version(void);

/* Anonymous shared memory: a new memfd of `size` bytes (0 allowed, grow with shim_fd_truncate). */
int32_t shim_memfd_create(const char *name, int64_t size, uint32_t flags);

/* POSIX named shared memory. `name` starts with '/'. oflag: 0 = open existing, 1 = create
 * exclusively. mode is the permission bits for a new object. */
int32_t shim_shm_open(const char *name, int32_t create, uint32_t mode, uint32_t flags);
int32_t shim_shm_unlink(const char *name);

/* Size of the object behind fd, or -errno. */
int64_t shim_fd_size(int32_t fd);
/* Set the size of the object behind fd. */
int32_t shim_fd_truncate(int32_t fd, int64_t size);

/* Map `len` bytes of fd from offset 0, MAP_SHARED. Returns the address or -errno. */
int64_t shim_mmap(int32_t fd, int64_t len, int32_t prot);
int32_t shim_munmap(int64_t addr, int64_t len);

int32_t shim_close(int32_t fd);
/* on != 0 sets FD_CLOEXEC, 0 clears it. Returns the previous state (0/1) or -errno. */
int32_t shim_set_cloexec(int32_t fd, int32_t on);
/* on != 0 sets O_NONBLOCK, 0 clears it. Returns the previous state (0/1) or -errno. */
int32_t shim_set_nonblock(int32_t fd, int32_t on);
/* A connected AF_UNIX stream socketpair, both ends close-on-exec and blocking; the two fds are
 * written to out[0] and out[1]. Returns 0 or -errno (nothing is left open on failure). */
int32_t shim_socketpair(int32_t *out);
/* Advisory whole-file lock, released by the kernel when the process dies (kill -9 included). */
int32_t shim_flock(int32_t fd, int32_t op);

/* 32-bit atomics on a 4-byte aligned address; sequentially consistent. The value is returned
 * as a non-negative int64 (0 .. 2^32-1); -EINVAL for a null or misaligned address. add and cas
 * return the value before the operation. */
int64_t shim_atomic_load32(int64_t addr);
int64_t shim_atomic_store32(int64_t addr, uint32_t value);
int64_t shim_atomic_add32(int64_t addr, uint32_t delta);
int64_t shim_atomic_cas32(int64_t addr, uint32_t expected, uint32_t desired);

/* 64-bit atomics on an 8-byte aligned address; the (previous) value is written to *out.
 * Return 0 or -EINVAL. */
int32_t shim_atomic_load64(int64_t addr, uint64_t *out);
int32_t shim_atomic_store64(int64_t addr, uint64_t value);
int32_t shim_atomic_add64(int64_t addr, uint64_t delta, uint64_t *out);
int32_t shim_atomic_cas64(int64_t addr, uint64_t expected, uint64_t desired, uint64_t *out);

/* Cross-process futex on a 4-byte aligned word in shared memory.
 * wait: sleeps while *addr == expected; timeout_ns < 0 waits forever.
 *       0 = woken, -EAGAIN = value already differed, -ETIMEDOUT, -EINTR.
 * wake: wakes up to `count` waiters; returns how many were woken. */
int32_t shim_futex_wait(int64_t addr, uint32_t expected, int64_t timeout_ns);
int32_t shim_futex_wake(int64_t addr, int32_t count);

/* Open `path` (relative) beneath the directory `dirfd`, close-on-exec, in one resolution that
 * cannot leave it: openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, so an absolute
 * symlink, a `..` that climbs above dirfd (in the path or in a symlink) and /proc magic links
 * all fail (-EXDEV or -ELOOP); a relative symlink that stays beneath dirfd is followed. The
 * final component is never followed (O_NOFOLLOW: a symlink there is -ELOOP). "" and "." open
 * dirfd itself. Where the kernel has no openat2 (-ENOSYS), or SHIM_BENEATH_WALK is set, the
 * path is walked one component at a time with openat(O_NOFOLLOW | O_DIRECTORY): stricter, it
 * follows no symlink at all (-ELOOP) and refuses every `..` (-EXDEV). A concurrent rename that
 * makes openat2 answer -EAGAIN is retried a few times. Returns the new fd or -errno. */
int32_t shim_open_beneath(int32_t dirfd, const char *path, int32_t how);

#endif
