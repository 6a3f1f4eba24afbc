#!/usr/bin/env bash
# Install a homed .deb into a throwaway copy of / and run the installed daemon the way its
# systemd unit would (or, given CMD, run CMD inside the copy instead: the client package has no
# unit). Run it in a private mount namespace as root:
#   unshare -m --propagation private bash overlay-install.sh DEB SCRATCH [CMD ARG…]
# SCRATCH (an empty folder) gets a tmpfs holding an overlay of / (lower: the live root, upper:
# the tmpfs), so dpkg -i, the postinst's adduser and the daemon's data change nothing on this
# machine and vanish with the namespace. After installing it prints "installed" on stderr and
# execs the unit's ExecStart as its User (with StateDirectory's folder made as systemd makes
# it), so this process becomes the daemon; reach its files with `nsenter -t PID -m -r`.
set -euo pipefail
deb=$1
scratch=$2
mount -t tmpfs -o size=3g,mode=0755 homed-test "$scratch"
mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
root=$scratch/root
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
mount -t tmpfs tmpfs "$root/run"
cp "$deb" "$root/tmp/"
chroot "$root" dpkg -i "/tmp/$(basename "$deb")" >&2
if [ $# -gt 2 ]; then
  shift 2
  exec chroot "$root" "$@"
fi
unit=$root/lib/systemd/system/homed.service
field() { sed -n "s/^$1=//p" "$unit" | tail -1; }
user=$(field User)
state=$(field StateDirectory)
mode=$(field StateDirectoryMode)
# shellcheck disable=SC2206 # ExecStart is a plain argv here (no quoting in the unit)
exec_start=($(field ExecStart))
[ -n "$user" ] && [ -n "$state" ] && [ ${#exec_start[@]} -gt 0 ] || { echo "unit lacks User, StateDirectory or ExecStart" >&2; exit 1; }
chroot "$root" install -d -o "$user" -g "$user" -m "${mode:-0755}" "/var/lib/$state"
echo "installed user=$user state=/var/lib/$state exec=${exec_start[*]}" >&2
home=$(field Environment | sed -n 's/^HOME=//p')
workdir=$(field WorkingDirectory)
exec chroot "$root" setpriv --reuid="$user" --regid="$user" --init-groups --no-new-privs --inh-caps=-all \
  env -i -C "${workdir:-/}" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="${home:-/}" \
  HOMED_LISTEN="${HOMED_LISTEN:-127.0.0.1:0}" "${exec_start[@]}"
