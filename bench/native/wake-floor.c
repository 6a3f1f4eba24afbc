/*
 * The floor under ipc.notify: the same one-byte ping-pong between two idle processes over a
 * unix socketpair, woken by epoll, in C with nothing else in the path. Each probe waits 1 ms
 * first so both processes are asleep, as in bench/ipc.ts. Prints one line:
 *   <p50_us> <p99_us>   (half a round trip, like the ring figure)
 * Usage: wake-floor [probes]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int wait_readable(int fd) {
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) return -1;
  return ep;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  if (n < 100) n = 100;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) return 1;
  char c = 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(sv[0]);
    int ep = wait_readable(sv[1]);
    struct epoll_event e;
    for (;;) {
      if (epoll_wait(ep, &e, 1, -1) < 0) continue;
      if (read(sv[1], &c, 1) <= 0) return 0;
      if (write(sv[1], &c, 1) != 1) return 0;
    }
  }
  close(sv[1]);
  int ep = wait_readable(sv[0]);
  double *lat = malloc(sizeof(double) * n);
  if (ep < 0 || !lat) return 1;
  for (int i = 0; i < n; i++) {
    usleep(1000);
    double t = now_us();
    if (write(sv[0], &c, 1) != 1) return 1;
    struct epoll_event e;
    while (epoll_wait(ep, &e, 1, -1) < 0) {
    }
    if (read(sv[0], &c, 1) != 1) return 1;
    lat[i] = (now_us() - t) / 2;
  }
  close(sv[0]);
  qsort(lat, n, sizeof(double), by_value);
  printf("%.1f %.1f\n", lat[n / 2], lat[(n * 99) / 100]);
  return 0;
}
