#!/usr/bin/env bash
# make dist-check (after make dist; too slow for make test): the release in dist/release/ as an
# administrator meets it, on a Debian 12 made by debootstrap (--variant=minbase, cached under
# $HOMED_DIST_CHECK_CACHE, default /var/cache/homed-dist-check; a second copy with systemd added
# for booting). Every step runs in a throwaway overlay of a cached tree, in a private mount
# namespace, so the cache stays as debootstrap left it.
#   1. lintian on every .deb: bench: dist.lintian_errors (goal 0)
#   2. the APT repository, in the minbase tree: apt-get update refuses it without the key and
#      homed-server cannot be installed; with the key in /etc/apt/keyrings/homed.asc and
#      signed-by=, apt-get update && apt-get install homed-server (apt's default Recommends)
#      works; apt's "additional disk space" is bench: dist.install_mb_server (goal <= 320 MB);
#      the installed daemon runs as user homed (the unit's ExecStart) and answers homed status;
#      apt-get upgrade brings a newer version published to the same repository with the same key
#   3. the same repository under a booted systemd (systemd-nspawn -b): install, systemctl enable
#      --now homed, active/enabled, its /proc/PID/exe not deleted, then apt-get purge
#   4. the .rpm packages: rpm -i into the minbase tree (scriptlets run there), the signature
#      checked with the key imported, then rpm -e leaves none of the package's paths behind
# The two figures also go to dist/dist-check.json, which make bench reports.
# Needs root, debootstrap, systemd-nspawn, rpm, lintian, gpg; the network for debootstrap (once)
# and for the Debian packages homed-server recommends. Exits non-zero when a check fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
release=${HOMED_RELEASE:-$here/dist/release}
cache=${HOMED_DIST_CHECK_CACHE:-/var/cache/homed-dist-check}
mirror=${HOMED_DIST_CHECK_MIRROR:-http://deb.debian.org/debian}
failed=0
say() { echo "dist-check: $*"; }
fail() {
  echo "dist-check: FAILED: $*" >&2
  failed=1
}
die() {
  echo "dist-check: $*" >&2
  exit 1
}

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, systemd-nspawn)"
for t in debootstrap systemd-nspawn rpm lintian gpg unshare; do
  command -v "$t" >/dev/null || die "$t is missing (scripts/ensure-test-tools.sh installs what make test needs; debootstrap: apt-get install debootstrap)"
done
[ -f "$release/SHA256SUMS" ] && [ -d "$release/apt" ] && [ -d "$release/rpm" ] || die "no signed release in $release: run make dist first"
version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$here/package.json" | head -1)

# The cached trees: debootstrap once; the booted one is the same with systemd added.
minbase=$cache/bookworm-minbase
booted=$cache/bookworm-systemd
mkdir -p "$cache"
if [ ! -x "$minbase/usr/bin/apt-get" ]; then
  say "debootstrap --variant=minbase bookworm into $minbase (once; a few minutes)"
  rm -rf "$minbase.tmp"
  debootstrap --variant=minbase bookworm "$minbase.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    die "debootstrap failed: see $cache/debootstrap.log"
  mv "$minbase.tmp" "$minbase"
fi
if [ ! -x "$booted/lib/systemd/systemd" ]; then
  say "adding systemd to a copy for booting: $booted (once)"
  rm -rf "$booted.tmp"
  cp -a "$minbase" "$booted.tmp"
  unshare -m --propagation private sh -c "mount -t proc proc '$booted.tmp/proc' &&
    chroot '$booted.tmp' sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd systemd-sysv dbus && apt-get clean'" \
    >"$cache/systemd.log" 2>&1 || die "installing systemd into the copy failed: see $cache/systemd.log"
  mv "$booted.tmp" "$booted"
fi

# Run SCRIPT (bash, stdin) in a throwaway overlay of TREE, chrooted, with /proc, /dev and the
# release (or DIR) read-only at /srv/homed-release, in new mount and pid namespaces (nothing
# outlives it).
in_overlay() {
  local tree=$1
  local shared=${2:-$release}
  local scratch
  scratch=$(mktemp -d /tmp/homed-dist-check-XXXXXX)
  local script=$scratch.sh
  cat >"$script"
  unshare -m -p -f --propagation private bash -euo pipefail -c '
    tree=$1 scratch=$2 release=$3 script=$4
    mount -t tmpfs -o size=3g,mode=0755 homed-check "$scratch"
    mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
    mount -t overlay overlay -o "lowerdir=$tree,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
    r=$scratch/root
    mount -t proc proc "$r/proc"
    mount --rbind /dev "$r/dev"
    mkdir -p "$r/srv/homed-release"
    mount --bind -o ro "$release" "$r/srv/homed-release"
    cp /etc/resolv.conf "$r/etc/resolv.conf"
    cp "$script" "$r/check.sh"
    chroot "$r" /bin/bash /check.sh
  ' in_overlay "$tree" "$scratch" "$shared" "$script"
  local rc=$?
  rm -rf "$scratch" "$script"
  return $rc
}

# 1. lintian on every .deb.
say "lintian on $(ls "$release"/*.deb | wc -l) packages"
lintian_out=$(lintian --tag-display-limit 0 "$release"/*.deb 2>&1 || true)
errors=$(grep -c '^E: ' <<<"$lintian_out" || true)
warnings=$(grep -c '^W: ' <<<"$lintian_out" || true)
grep -E '^[EW]: ' <<<"$lintian_out" | sed 's/^/  /' || true
say "lintian: $errors errors, $warnings warnings"
echo "bench: dist.lintian_errors $errors errors"
[ "$errors" = 0 ] || fail "lintian reports $errors errors"

# 2. The APT repository in the minbase tree.
say "apt: the repository in a Debian 12 minbase tree"
apt_script=$(
  cat <<SCRIPT
export DEBIAN_FRONTEND=noninteractive
list=/etc/apt/sources.list.d/homed.list
echo "deb file:/srv/homed-release/apt stable main" >\$list
if apt-get update >/tmp/update.log 2>&1; then echo "unsigned: accepted"; else
  echo "unsigned: refused: \$(grep -m1 -oE 'NO_PUBKEY [0-9A-F]+|is not signed' /tmp/update.log)"
fi
apt-get install -y homed-server >/tmp/install.log 2>&1 && echo "unsigned install: installed" || echo "unsigned install: refused"
install -d -m 0755 /etc/apt/keyrings
cp /srv/homed-release/homed-release-key.asc /etc/apt/keyrings/homed.asc
echo "deb [signed-by=/etc/apt/keyrings/homed.asc] file:/srv/homed-release/apt stable main" >\$list
apt-get update >/tmp/update.log 2>&1 && echo "signed: update ok" || { echo "signed: update failed"; cat /tmp/update.log; }
echo "candidate \$(apt-cache policy homed-server | sed -n 's/^ *Candidate: //p')"
# apt's own summary of what the install adds (answered no), then the install itself.
apt-get install --assume-no homed-server 2>&1 | grep -E '^After this operation|newly installed' || true
apt-get install -y homed-server >/tmp/install.log 2>&1 && echo "installed \$(dpkg-query -W -f='\${Version}' homed-server)" || { echo "install failed"; tail -20 /tmp/install.log; }
echo "version \$(homed --version) / \$(waiter --version)"
for m in man1/homed.1.gz man1/waiter.1.gz man5/homed.conf.5.gz; do test -f /usr/share/man/\$m || echo "missing \$m"; done
echo "datadir \$(stat -c '%U %a' /var/lib/homed)"
# The unit's ExecStart as its user, until homed status answers.
runuser -u homed -- env HOMED_LISTEN=127.0.0.1:0 /usr/bin/homed -data /var/lib/homed >/tmp/homed.log 2>&1 &
for i in \$(seq 100); do runuser -u homed -- homed status -data /var/lib/homed >/tmp/status.txt 2>&1 && break; sleep 0.2; done
grep -qi running /tmp/status.txt && echo "status: running" || { echo "status: no answer"; cat /tmp/status.txt /tmp/homed.log | tail -20; }
kill %1; wait || true
SCRIPT
)
apt_out=$(in_overlay "$minbase" <<<"$apt_script" 2>&1) || fail "the apt scenario failed"
sed 's/^/  /' <<<"$apt_out"
grep -q '^unsigned: refused' <<<"$apt_out" || fail "apt accepted the repository without its key"
grep -q '^unsigned install: refused' <<<"$apt_out" || fail "homed-server installed from an unverified repository"
grep -q '^signed: update ok' <<<"$apt_out" || fail "apt-get update with the key failed"
grep -q "^installed $version\$" <<<"$apt_out" || fail "homed-server $version was not installed from the repository"
grep -q '^missing ' <<<"$apt_out" && fail "man pages missing"
grep -q "^version homed $version .* / waiter $version " <<<"$apt_out" || fail "--version did not answer"
grep -q '^datadir homed 700$' <<<"$apt_out" || fail "/var/lib/homed is not homed's, 0700"
grep -q '^status: running$' <<<"$apt_out" || fail "the installed daemon did not answer homed status"
# "After this operation, 300 MB of additional disk space will be used." (kB, MB or GB)
space=$(sed -nE 's/^After this operation, ([0-9.,]+) ([kMG])B of additional disk space will be used\.$/\1 \2/p' <<<"$apt_out")
if [ -n "$space" ]; then
  mb=$(awk -v n="${space% *}" -v u="${space#* }" 'BEGIN { gsub(",", "", n); f = (u == "k") ? 1 / 1000 : (u == "G") ? 1000 : 1; printf "%.0f", n * f }')
  echo "bench: dist.install_mb_server $mb MB"
  [ "$mb" -le 320 ] || fail "a headless install adds $mb MB (goal <= 320)"
else
  fail "apt printed no additional disk space"
fi

# 2b. apt upgrade: the repository published again with a newer version (the same binaries under
# $version.1, HOMED_DIST_VERSION) and the same key; a check key made here, as make dist's may be
# a throwaway one whose secret is gone.
say "apt upgrade: the repository published again as $version.1, the same key"
up=$(mktemp -d /tmp/homed-dist-check-up-XXXXXX)
gh=$(mktemp -d /tmp/homed-dist-check-gpg-XXXXXX)
gpg --homedir "$gh" --batch --passphrase '' --quick-gen-key "homed dist-check <check@homed.invalid>" rsa2048 sign 1d 2>/dev/null
gpg --homedir "$gh" --batch --armor --export-secret-keys >"$gh/secret.asc"
for v in "$version" "$version.1"; do
  HOMED_DIST_VERSION=$v HOMED_SIGNING_KEY=$gh/secret.asc "$here/node_modules/.bin/bun" "$here/scripts/dist.ts" \
    -out "$up/$v" -sign deb-server-amd64 >"$up/build-$v.log" 2>&1 || fail "building the $v repository: $(tail -3 "$up/build-$v.log")"
done
gpgconf --homedir "$gh" --kill gpg-agent || true
rm -rf "$gh"
upgrade_script=$(
  cat <<SCRIPT
export DEBIAN_FRONTEND=noninteractive
install -d -m 0755 /etc/apt/keyrings
cp /srv/homed-release/$version/homed-release-key.asc /etc/apt/keyrings/homed.asc
ln -s /srv/homed-release/$version /srv/homed-repo
echo "deb [signed-by=/etc/apt/keyrings/homed.asc] file:/srv/homed-repo/apt stable main" >/etc/apt/sources.list.d/homed.list
apt-get update >/tmp/update.log 2>&1 || { echo "update failed"; cat /tmp/update.log; }
apt-get install -y --no-install-recommends homed-server >/tmp/install.log 2>&1 || { echo "install failed"; tail /tmp/install.log; }
echo "first \$(dpkg-query -W -f='\${Version}' homed-server)"
# The next release, published where the first was.
ln -sfn /srv/homed-release/$version.1 /srv/homed-repo
apt-get update >/tmp/update.log 2>&1 || { echo "update failed"; cat /tmp/update.log; }
apt-get upgrade -y >/tmp/upgrade.log 2>&1 || { echo "upgrade failed"; tail /tmp/upgrade.log; }
echo "upgraded \$(dpkg-query -W -f='\${Version}' homed-server)"
SCRIPT
)
up_out=$(in_overlay "$minbase" "$up" <<<"$upgrade_script" 2>&1) || fail "the apt upgrade scenario failed"
rm -rf "$up"
sed 's/^/  /' <<<"$up_out"
grep -q "^first $version\$" <<<"$up_out" || fail "the first release did not install"
grep -q "^upgraded $version.1\$" <<<"$up_out" || fail "apt-get upgrade did not bring $version.1"

# 3. Under a booted systemd: the repository's package as a service.
say "apt under a booted systemd (systemd-nspawn -b)"
scratch=$(mktemp -d /tmp/homed-dist-check-boot-XXXXXX)
boot_out=$(unshare -m --propagation private bash -euo pipefail -c '
  tree=$1 scratch=$2 release=$3 version=$4
  mount -t tmpfs -o size=3g,mode=0755 homed-check "$scratch"
  mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
  mount -t overlay overlay -o "lowerdir=$tree,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
  r=$scratch/root
  install -d -m 0755 "$r/etc/apt/keyrings"
  cp "$release/homed-release-key.asc" "$r/etc/apt/keyrings/homed.asc"
  echo "deb [signed-by=/etc/apt/keyrings/homed.asc] file:/srv/homed-release/apt stable main" >"$r/etc/apt/sources.list.d/homed.list"
  units=$r/etc/systemd/system
  mkdir -p "$units/multi-user.target.wants"
  cat >"$r/check.sh" <<"CHECK"
set -u
export DEBIAN_FRONTEND=noninteractive
apt-get update >/var/log/update.log 2>&1 || { echo "update failed"; cat /var/log/update.log; }
apt-get install -y --no-install-recommends homed-server >/var/log/install.log 2>&1 || { echo "install failed"; tail -20 /var/log/install.log; }
echo "fresh active=$(systemctl is-active homed.service) enabled=$(systemctl is-enabled homed.service)"
mkdir -p /etc/systemd/system/homed.service.d
printf "[Service]\nEnvironment=HOMED_LISTEN=127.0.0.1:0\n" >/etc/systemd/system/homed.service.d/check.conf
systemctl daemon-reload
systemctl enable --now homed.service >/dev/null 2>&1
for i in $(seq 150); do /usr/bin/homed status -data /var/lib/homed >/dev/null 2>&1 && break; sleep 0.2; done
pid=$(systemctl show -p MainPID --value homed.service)
echo "started active=$(systemctl is-active homed.service) enabled=$(systemctl is-enabled homed.service) user=$(stat -c %U /proc/$pid) exe=$(readlink /proc/$pid/exe)"
apt-get purge -y homed-server >/var/log/purge.log 2>&1 || { echo "purge failed"; tail -20 /var/log/purge.log; }
echo "purged active=$(systemctl is-active homed.service) unit=$(test -e /lib/systemd/system/homed.service && echo left || echo gone)"
echo end
CHECK
  cat >"$units/homed-check.service" <<"UNIT"
[Unit]
After=multi-user.target
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
StandardOutput=file:/var/log/homed-check.log
StandardError=file:/var/log/homed-check.log
ExecStart=/bin/bash /check.sh
UNIT
  ln -s /etc/systemd/system/homed-check.service "$units/multi-user.target.wants/homed-check.service"
  timeout 300 systemd-nspawn -q --link-journal=no --register=no --keep-unit -D "$r" \
    --bind-ro="$release:/srv/homed-release" --resolv-conf=copy-host -b --console=pipe >"$scratch/console.log" 2>&1 ||
    echo "nspawn exited $?"
  cat "$r/var/log/homed-check.log" 2>/dev/null || { echo "(no check log)"; tail -30 "$scratch/console.log"; }
' boot "$booted" "$scratch" "$release" "$version" 2>&1) || fail "the booted scenario failed"
rm -rf "$scratch"
sed 's/^/  /' <<<"$boot_out"
grep -q '^fresh active=inactive enabled=disabled$' <<<"$boot_out" || fail "the install started or enabled homed"
grep -q '^started active=active enabled=enabled user=homed exe=/usr/bin/homed$' <<<"$boot_out" ||
  fail "homed.service did not run /usr/bin/homed as homed"
grep -q '^purged active=inactive unit=gone$' <<<"$boot_out" || fail "the purge left the service or its unit"
grep -q '^end$' <<<"$boot_out" || fail "the booted scenario did not finish"

# 4. The .rpm packages: rpm -i into the minbase tree (Debian's rpm, --root: the scriptlets run
# chrooted there), rpm -e, then none of the paths the package listed is left.
for rpm_file in "$release"/homed-server-*.x86_64.rpm "$release"/homed-full-*.x86_64.rpm; do
  name=$(rpm -qp --qf '%{NAME}' "$rpm_file" 2>/dev/null)
  say "rpm: $name into a root, then rpm -e"
  scratch=$(mktemp -d /tmp/homed-dist-check-rpm-XXXXXX)
  rpm_out=$(unshare -m -p -f --propagation private bash -uo pipefail -c '
    tree=$1 scratch=$2 rpm_file=$3 key=$4 name=$5
    mount -t tmpfs -o size=3g,mode=0755 homed-check "$scratch"
    mkdir "$scratch/upper" "$scratch/work" "$scratch/root"
    mount -t overlay overlay -o "lowerdir=$tree,upperdir=$scratch/upper,workdir=$scratch/work" "$scratch/root"
    r=$scratch/root
    mount -t proc proc "$r/proc"
    rpm --root "$r" --initdb
    rpm --root "$r" --import "$key"
    rpm --root "$r" -K "$rpm_file"
    rpm --root "$r" -i --nodeps "$rpm_file" 2>&1 | grep -v "should not be used directly\|assuming you know" && true
    echo "installed $(rpm --root "$r" -q "$name")"
    echo "version $(chroot "$r" homed --version)"
    echo "user $(chroot "$r" getent passwd homed | cut -d: -f1,6,7)"
    echo "datadir $(chroot "$r" stat -c "%U %a" /var/lib/homed 2>&1)"
    rpm --root "$r" -e "$name" 2>&1 | grep -v "should not be used directly\|assuming you know" && true
    rpm --root "$r" -q --quiet "$name" || echo "erased"
    left=0
    while read -r f; do
      if [ -e "$r$f" ]; then echo "left: $f"; left=$((left + 1)); fi
    done < <(rpm -qlp "$rpm_file" 2>/dev/null)
    echo "left $left"
  ' rpm "$minbase" "$scratch" "$rpm_file" "$release/homed-release-key.asc" "$name" 2>&1) || fail "the rpm scenario of $name failed"
  rm -rf "$scratch"
  sed 's/^/  /' <<<"$rpm_out"
  grep -q "digests signatures OK" <<<"$rpm_out" || fail "$name: rpm -K did not check its signature"
  grep -q "^installed $name-$version-" <<<"$rpm_out" || fail "$name did not install"
  grep -q "^version homed $version " <<<"$rpm_out" || fail "$name: homed --version"
  grep -q '^user homed:/var/lib/homed:' <<<"$rpm_out" || fail "$name: %pre made no homed user"
  grep -q '^datadir homed 700$' <<<"$rpm_out" || fail "$name: %post made no /var/lib/homed"
  grep -q '^erased$' <<<"$rpm_out" || fail "$name: rpm -e failed"
  grep -q '^left 0$' <<<"$rpm_out" || fail "$name: rpm -e left some of its paths"
done

# For make bench (bench/dist.ts), beside dist/release-sizes.json.
printf '{\n  "dist.install_mb_server": %s,\n  "dist.lintian_errors": %s\n}\n' "${mb:-null}" "$errors" >"$here/dist/dist-check.json"

[ "$failed" = 0 ] || die "some checks failed (above)"
say "all checks passed"
