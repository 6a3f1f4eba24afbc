#!/bin/bash
# Run an aarch64 command as a board would, children too: in a private user and mount namespace
# (unshare -Urm --fork test/harness/arm64-userns.sh CMD...), the arm64 C library where an arm64
# Debian has it and qemu-aarch64-static registered for aarch64 ELF files in this namespace's own
# binfmt_misc (Linux ≥ 6.7). So the arm64 homed starts its plugins as itself, as on the board,
# with no QEMU_LD_PREFIX that the daemon's clean child environment would drop. Nothing outside
# the namespace changes: the overlay's upper and work dirs go in $ARM64_NS_DIR (a test's
# temporary folder) or a new one under /tmp. The command replaces this script (exec): it is
# unshare's child, which a signal to unshare does not reach (unshare ignores SIGTERM while it
# waits); signal the command itself, and use `--kill-child` so it cannot outlive unshare.
set -euo pipefail
ov=${ARM64_NS_DIR:-$(mktemp -d)}
mkdir -p "$ov/up" "$ov/work"
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$ov/up/ld-linux-aarch64.so.1"
mount -t overlay overlay -o "lowerdir=/usr/lib,upperdir=$ov/up,workdir=$ov/work" /usr/lib
mkdir -p /usr/lib/aarch64-linux-gnu
mount --bind /usr/aarch64-linux-gnu/lib /usr/lib/aarch64-linux-gnu
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
# magic and mask of an aarch64 ELF executable (e_machine 0xb7); F: the interpreter is opened now.
printf ':qemu-aarch64:M::\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:%s:F\n' \
  "$(command -v qemu-aarch64-static)" >/proc/sys/fs/binfmt_misc/register
exec "$@"
