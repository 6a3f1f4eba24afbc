#!/usr/bin/env bash
# Boot systemd in a container over a throwaway copy of / and run SCENARIO (a shell script) in
# it as a oneshot unit, as root, with the package files in PKGDIR at /srv/homed-scenario/pkgs
# (not /tmp: the booted systemd mounts a fresh tmpfs there): the maintainer scripts then talk to a real systemd (deb-systemd-invoke, systemctl try-restart), which no
# chroot can show. The container powers off when the scenario ends. Run it in a private mount
# namespace:
#   unshare -m --propagation private bash nspawn-scenario.sh PKGDIR SCRATCH SCENARIO
# Prints the scenario's output (stdout and stderr) after a "---- scenario" marker.
set -euo pipefail
pkgdir=$1
scratch=$2
scenario=$3
mount -t tmpfs -o size=3g,mode=0755 homed-test "$scratch"
mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
root=$scratch/root
mkdir -p "$root/srv/homed-scenario/pkgs"
cp "$pkgdir"/*.deb "$pkgdir"/*.rpm "$root/srv/homed-scenario/pkgs/" 2>/dev/null || true
cp "$scenario" "$root/srv/homed-scenario/scenario.sh"
# A Docker image's policy-rc.d (exit 101) forbids deb-systemd-invoke every start and stop; an
# administrator's machine has none.
rm -f "$root/usr/sbin/policy-rc.d"
units=$root/etc/systemd/system
mkdir -p "$units/multi-user.target.wants" "$units/homed.service.d"
# Any free web port: the container shares the host's network.
printf '[Service]\nEnvironment=HOMED_LISTEN=127.0.0.1:0\n' > "$units/homed.service.d/test.conf"
# Whatever the host's overlay carries over from earlier package tests must not leak in.
rm -f "$units/multi-user.target.wants/homed.service"
cat > "$units/homed-scenario.service" <<'UNIT'
[Unit]
After=multi-user.target
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
StandardOutput=file:/var/log/homed-scenario.log
StandardError=file:/var/log/homed-scenario.log
ExecStart=/bin/bash /srv/homed-scenario/scenario.sh
UNIT
ln -sf /etc/systemd/system/homed-scenario.service "$units/multi-user.target.wants/homed-scenario.service"
# No bus and no machined here: keep nspawn from registering or asking for a scope.
timeout 200 systemd-nspawn -q --link-journal=no --register=no --keep-unit -D "$root" -b --console=pipe \
  >"$scratch/console.log" 2>&1 || echo "nspawn exited $?" >&2
echo "---- scenario"
cat "$root/var/log/homed-scenario.log" 2>/dev/null || { echo "(no scenario log)"; tail -30 "$scratch/console.log" >&2; }
