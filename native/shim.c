/* homed native shim: see shim.h for the contract of every function. */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stddef.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NEG_ERRNO() (-(int32_t)errno)

static int aligned(int64_t addr, int64_t to) { return addr > 0 && (addr % to) == 0; }

int32_t shim_abi_version(void) { return SHIM_ABI_VERSION; }

int32_t shim_memfd_create(const char *name, int64_t size, uint32_t flags) {
  if (name == NULL || size < 0) return -EINVAL;
  unsigned int mfd = MFD_ALLOW_SEALING;
  if (flags & SHIM_CLOEXEC) mfd |= MFD_CLOEXEC;
  int fd = memfd_create(name, mfd);
  if (fd < 0) return NEG_ERRNO();
  if (size > 0 && ftruncate(fd, (off_t)size) != 0) {
    int32_t err = NEG_ERRNO();
    close(fd);
    return err;
  }
  return fd;
}

int32_t shim_shm_open(const char *name, int32_t create, uint32_t mode, uint32_t flags) {
  if (name == NULL) return -EINVAL;
  int oflag = O_RDWR;
  if (create) oflag |= O_CREAT | O_EXCL;
  /* shm_open always sets FD_CLOEXEC; it is cleared below when the caller wants inheritance. */
  int fd = shm_open(name, oflag, (mode_t)mode);
  if (fd < 0) return NEG_ERRNO();
  if (!(flags & SHIM_CLOEXEC)) {
    int fl = fcntl(fd, F_GETFD);
    if (fl < 0 || fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC) < 0) {
      int32_t err = NEG_ERRNO();
      close(fd);
      return err;
    }
  }
  return fd;
}

int32_t shim_shm_unlink(const char *name) {
  if (name == NULL) return -EINVAL;
  return shm_unlink(name) == 0 ? 0 : NEG_ERRNO();
}

int64_t shim_fd_size(int32_t fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return NEG_ERRNO();
  return (int64_t)st.st_size;
}

int32_t shim_fd_truncate(int32_t fd, int64_t size) {
  if (size < 0) return -EINVAL;
  return ftruncate(fd, (off_t)size) == 0 ? 0 : NEG_ERRNO();
}

int64_t shim_mmap(int32_t fd, int64_t len, int32_t prot) {
  if (len <= 0) return -EINVAL;
  int p;
  if (prot == SHIM_PROT_READ) p = PROT_READ;
  else if (prot == SHIM_PROT_RW) p = PROT_READ | PROT_WRITE;
  else return -EINVAL;
  void *addr = mmap(NULL, (size_t)len, p, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) return NEG_ERRNO();
  return (int64_t)(intptr_t)addr;
}

int32_t shim_munmap(int64_t addr, int64_t len) {
  if (addr <= 0 || len <= 0) return -EINVAL;
  return munmap((void *)(intptr_t)addr, (size_t)len) == 0 ? 0 : NEG_ERRNO();
}

int32_t shim_close(int32_t fd) { return close(fd) == 0 ? 0 : NEG_ERRNO(); }

int32_t shim_set_cloexec(int32_t fd, int32_t on) {
  int fl = fcntl(fd, F_GETFD);
  if (fl < 0) return NEG_ERRNO();
  int next = on ? (fl | FD_CLOEXEC) : (fl & ~FD_CLOEXEC);
  if (fcntl(fd, F_SETFD, next) < 0) return NEG_ERRNO();
  return (fl & FD_CLOEXEC) ? 1 : 0;
}

int32_t shim_set_nonblock(int32_t fd, int32_t on) {
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0) return NEG_ERRNO();
  int next = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, next) < 0) return NEG_ERRNO();
  return (fl & O_NONBLOCK) ? 1 : 0;
}

int32_t shim_socketpair(int32_t *out) {
  if (out == NULL) return -EINVAL;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return NEG_ERRNO();
  out[0] = sv[0];
  out[1] = sv[1];
  return 0;
}

int32_t shim_flock(int32_t fd, int32_t op) {
  int how;
  if (op == SHIM_LOCK_EX_NB) how = LOCK_EX | LOCK_NB;
  else if (op == SHIM_LOCK_UN) how = LOCK_UN;
  else return -EINVAL;
  return flock(fd, how) == 0 ? 0 : NEG_ERRNO();
}

#define P32(a) ((uint32_t *)(intptr_t)(a))
#define P64(a) ((uint64_t *)(intptr_t)(a))

int64_t shim_atomic_load32(int64_t addr) {
  if (!aligned(addr, 4)) return -EINVAL;
  return (int64_t)__atomic_load_n(P32(addr), __ATOMIC_SEQ_CST);
}

int64_t shim_atomic_store32(int64_t addr, uint32_t value) {
  if (!aligned(addr, 4)) return -EINVAL;
  __atomic_store_n(P32(addr), value, __ATOMIC_SEQ_CST);
  return 0;
}

int64_t shim_atomic_add32(int64_t addr, uint32_t delta) {
  if (!aligned(addr, 4)) return -EINVAL;
  return (int64_t)__atomic_fetch_add(P32(addr), delta, __ATOMIC_SEQ_CST);
}

int64_t shim_atomic_cas32(int64_t addr, uint32_t expected, uint32_t desired) {
  if (!aligned(addr, 4)) return -EINVAL;
  uint32_t seen = expected;
  __atomic_compare_exchange_n(P32(addr), &seen, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return (int64_t)seen;
}

int32_t shim_atomic_load64(int64_t addr, uint64_t *out) {
  if (!aligned(addr, 8) || out == NULL) return -EINVAL;
  *out = __atomic_load_n(P64(addr), __ATOMIC_SEQ_CST);
  return 0;
}

int32_t shim_atomic_store64(int64_t addr, uint64_t value) {
  if (!aligned(addr, 8)) return -EINVAL;
  __atomic_store_n(P64(addr), value, __ATOMIC_SEQ_CST);
  return 0;
}

int32_t shim_atomic_add64(int64_t addr, uint64_t delta, uint64_t *out) {
  if (!aligned(addr, 8) || out == NULL) return -EINVAL;
  *out = __atomic_fetch_add(P64(addr), delta, __ATOMIC_SEQ_CST);
  return 0;
}

int32_t shim_atomic_cas64(int64_t addr, uint64_t expected, uint64_t desired, uint64_t *out) {
  if (!aligned(addr, 8) || out == NULL) return -EINVAL;
  uint64_t seen = expected;
  __atomic_compare_exchange_n(P64(addr), &seen, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  *out = seen;
  return 0;
}

int32_t shim_futex_wait(int64_t addr, uint32_t expected, int64_t timeout_ns) {
  if (!aligned(addr, 4)) return -EINVAL;
  struct timespec ts;
  struct timespec *tsp = NULL;
  if (timeout_ns >= 0) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000LL);
    ts.tv_nsec = (long)(timeout_ns % 1000000000LL);
    tsp = &ts;
  }
  /* Not FUTEX_PRIVATE_FLAG: the word lives in memory shared between processes. */
  long r = syscall(SYS_futex, P32(addr), FUTEX_WAIT, expected, tsp, NULL, 0);
  return r == 0 ? 0 : NEG_ERRNO();
}

int32_t shim_futex_wake(int64_t addr, int32_t count) {
  if (!aligned(addr, 4) || count < 0) return -EINVAL;
  long r = syscall(SYS_futex, P32(addr), FUTEX_WAKE, count, NULL, NULL, 0);
  return r >= 0 ? (int32_t)r : NEG_ERRNO();
}

/* Declared here rather than taken from <linux/openat2.h>, which older and cross toolchains lack;
 * the layout is the kernel's ABI (three u64). 437 is openat2's number on every architecture. */
struct shim_open_how {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define SHIM_RESOLVE_NO_MAGICLINKS 0x02
#define SHIM_RESOLVE_BENEATH 0x08

/* A folder is first opened O_PATH (so a symlink, a FIFO or a device is looked at, never opened
 * for real), then reopened through its own "." once fstat says it is a folder. */
static int beneath_flags(int32_t mode) {
  if (mode == SHIM_BENEATH_DIR) return O_PATH;
  if (mode == SHIM_BENEATH_READ) return O_RDONLY | O_NONBLOCK | O_NOCTTY;
  return -1;
}

/* The O_PATH fd of a folder as a readable folder fd (consumed); -ELOOP for a symlink, -ENOTDIR
 * for anything else that is not a folder. */
static int32_t reopen_folder(int32_t fd) {
  struct stat st;
  int32_t r;
  if (fstat(fd, &st) != 0) r = NEG_ERRNO();
  else if (S_ISLNK(st.st_mode)) r = -ELOOP;
  else if (!S_ISDIR(st.st_mode)) r = -ENOTDIR;
  else {
    int dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    r = dir >= 0 ? dir : NEG_ERRNO();
  }
  close(fd);
  return r;
}

/* The fallback: each component but the last opened O_PATH | O_NOFOLLOW from the one before and
 * refused unless it is a folder; the last opened with the caller's flags and O_NOFOLLOW. */
static int32_t walk_beneath(int32_t dirfd, const char *path, int flags) {
  char buf[PATH_MAX];
  size_t len = strlen(path);
  if (len >= sizeof buf) return -ENAMETOOLONG;
  memcpy(buf, path, len + 1);
  int cur = dirfd;
  char *name = buf;
  for (;;) {
    while (*name == '/') name++;
    char *slash = strchr(name, '/');
    if (slash != NULL) *slash = '\0';
    char *rest = slash != NULL ? slash + 1 : NULL;
    while (rest != NULL && *rest == '/') rest++;
    int last = rest == NULL || *rest == '\0';
    if (strcmp(name, "..") == 0) {
      if (cur != dirfd) close(cur);
      return -EXDEV;
    }
    const char *at = (*name == '\0') ? "." : name;
    if (last) {
      int fd = openat(cur, at, flags | O_NOFOLLOW | O_CLOEXEC);
      int32_t r = fd >= 0 ? fd : NEG_ERRNO();
      if (cur != dirfd) close(cur);
      return r;
    }
    /* O_PATH: a symlink is looked at rather than followed, and told apart from a file. */
    int next = openat(cur, at, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    int32_t err = next >= 0 ? 0 : NEG_ERRNO();
    struct stat st;
    if (next >= 0) {
      if (fstat(next, &st) != 0) err = NEG_ERRNO();
      else if (S_ISLNK(st.st_mode)) err = -ELOOP;
      else if (!S_ISDIR(st.st_mode)) err = -ENOTDIR;
      if (err != 0) close(next);
    }
    if (cur != dirfd) close(cur);
    if (err != 0) return err;
    cur = next;
    name = rest;
  }
}

static int32_t open_beneath(int32_t dirfd, const char *path, int32_t how) {
  if (path[0] == '/') return -EXDEV;
  int flags = beneath_flags(how & ~SHIM_BENEATH_WALK);
  if (!(how & SHIM_BENEATH_WALK)) {
    struct shim_open_how oh = {
        .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
        .mode = 0,
        .resolve = SHIM_RESOLVE_BENEATH | SHIM_RESOLVE_NO_MAGICLINKS,
    };
    const char *p = path[0] == '\0' ? "." : path;
    for (int tries = 0; tries < 8; tries++) {
      long fd = syscall(SYS_openat2, dirfd, p, &oh, sizeof oh);
      if (fd >= 0) return (int32_t)fd;
      if (errno == EAGAIN || errno == EINTR) continue;
      if (errno != ENOSYS) return NEG_ERRNO();
      break;
    }
    if (errno != ENOSYS) return NEG_ERRNO();
  }
  return walk_beneath(dirfd, path, flags);
}

int32_t shim_open_beneath(int32_t dirfd, const char *path, int32_t how) {
  if (path == NULL || beneath_flags(how & ~SHIM_BENEATH_WALK) < 0) return -EINVAL;
  int32_t fd = open_beneath(dirfd, path, how);
  if (fd < 0 || (how & ~SHIM_BENEATH_WALK) != SHIM_BENEATH_DIR) return fd;
  return reopen_folder(fd);
}
