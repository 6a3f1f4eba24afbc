#!/usr/bin/env bash
# Boot systemd in a container over a throwaway copy of / with a homed .deb installed, and run
# the real homed.service enabled, next to a probe unit: homed.service's own hardening with its
# ExecStart replaced by PROBE's lines (the shell tool's bubblewrap call). A checker unit waits
# for `homed status`, then powers the container off. Run it in a private mount namespace:
#   unshare -m --propagation private bash nspawn-boot.sh DEB SCRATCH PROBE
# Prints the probe's and the checker's output between "---- probe" / "---- status" markers.
set -euo pipefail
deb=$1
scratch=$2
probe=$3
mount -t tmpfs -o size=3g,mode=0755 homed-test "$scratch"
mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
root=$scratch/root
mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/"
chroot "$root" dpkg -i "/tmp/$(basename "$deb")" >&2
umount "$root/proc"
units=$root/etc/systemd/system
mkdir -p "$units/multi-user.target.wants" "$units/homed.service.d"
# Enabled here by hand, as the person would (the package does not), on any free web port.
ln -sf /lib/systemd/system/homed.service "$units/multi-user.target.wants/homed.service"
printf '[Service]\nEnvironment=HOMED_LISTEN=127.0.0.1:0\n' > "$units/homed.service.d/test.conf"
awk -v f="$probe" '/^ExecStart=/{while((getline l < f)>0) print l; next} /^Restart/{next}
  {sub(/^Type=exec/,"Type=oneshot"); print}' "$root/lib/systemd/system/homed.service" > "$units/homed-probe.service"
printf '[Service]\nStandardOutput=file:/var/log/homed-probe.log\nStandardError=file:/var/log/homed-probe.log\n' \
  > "$units/homed-probe.service.d.conf"
mkdir -p "$units/homed-probe.service.d" && mv "$units/homed-probe.service.d.conf" "$units/homed-probe.service.d/log.conf"
cat > "$units/homed-check.service" <<'UNIT'
[Unit]
After=homed.service homed-probe.service
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
StandardOutput=append:/var/log/homed-check.log
StandardError=append:/var/log/homed-check.log
ExecStart=/bin/sh -c 'for i in $(seq 150); do /usr/bin/homed status -data /var/lib/homed -json && exit 0; sleep 0.2; done; exit 1'
ExecStartPost=/bin/sh -c 'stat -c "%%U %%a" /var/lib/homed; systemctl show -p MainPID -p User homed.service'
ExecStartPost=/bin/sh /usr/local/lib/homed-check-more.sh
UNIT
# What an administrator meets next: root's `homed status` without -data, the login link kept out
# of the journal, `systemctl reload homed`.
mkdir -p "$root/usr/local/lib"
cat > "$root/usr/local/lib/homed-check-more.sh" <<'CHECK'
echo "nodata $(/usr/bin/homed status -json | grep -o '"dataDir":"[^"]*"')"
stat -c "login-link %a %U" /var/lib/homed/login-link
echo "journal-codes $(journalctl -u homed.service --no-pager | grep -c 'login?code=')"
echo "journal-where $(journalctl -u homed.service --no-pager | grep -c 'login link is in /var/lib/homed/login-link')"
systemctl reload homed.service
for i in $(seq 50); do
  if grep -q "configuration reloaded" /var/lib/homed/logs/homed.log; then echo "reload ok"; exit 0; fi
  sleep 0.2
done
echo "reload not seen"
CHECK
ln -sf /etc/systemd/system/homed-probe.service "$units/multi-user.target.wants/homed-probe.service"
ln -sf /etc/systemd/system/homed-check.service "$units/multi-user.target.wants/homed-check.service"
# No bus and no machined here: keep nspawn from registering or asking for a scope.
timeout 100 systemd-nspawn -q --link-journal=no --register=no --keep-unit -D "$root" -b --console=pipe \
  >"$scratch/console.log" 2>&1 || echo "nspawn exited $?" >&2
echo "---- probe"
cat "$root/var/log/homed-probe.log" 2>/dev/null || echo "(no probe log)"
echo "---- status"
cat "$root/var/log/homed-check.log" 2>/dev/null || { echo "(no status log)"; tail -30 "$scratch/console.log" >&2; }
