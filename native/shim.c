/* homed native shim: see shim.h for the contract of every function. */
#define _GNU_SOURCE
#include "shim.h"

#include <errno.h>
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
