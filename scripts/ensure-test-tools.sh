#!/usr/bin/env bash
# Install the Debian packages the test suites use when they are missing: the aarch64 cross
# compiler (arm64 shim), qemu-user-static (running the arm64 build), chromium (web UI tests) and
# tmux (the interactive `homed chat`, driven as a person at a terminal would) and bubblewrap
# (the sandbox of shell_run and code_run), python3 (code_run's Python, looked for on the
# sandbox's PATH, and the example Python plugin's test), systemd-nspawn (booting systemd over an installed .deb to check the unit) and
# rpm (rpmbuild for make dist's .rpm, rpm -qp in its test), nsis (makensis for the Windows installers), lintian,
# and the media tools' binaries: tesseract (OCR, English and Simplified Chinese), espeak-ng (speech),
# pocketsphinx (offline speech-to-text, US English), ffmpeg (video and audio), mpv (music) and
# poppler-utils (PDF text and pages), and the fonts the media tests draw text with (DejaVu,
# WenQuanYi Micro Hei for Chinese) and Xvfb (an X display for media_screenshot); for make dist and the
# packaging tests: rsvg-convert (the icon's PNG sizes), desktop-file-validate, man (rendering the man pages),
# gpg/gpgv (signing and checking the release), apt-ftparchive and createrepo_c (the APT and dnf repositories),
# and promtool (`promtool check metrics` reads GET /metrics as Prometheus would): taken out of Debian's
# prometheus package into dist/tools/bin, not installed, since the package would also enable a Prometheus
# server on :9090.
# Only possible as root with apt; otherwise say what is missing and let the tests report it.
set -euo pipefail
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v tmux >/dev/null || need+=(tmux)
command -v bwrap >/dev/null || need+=(bubblewrap)
[ -x /usr/bin/python3 ] || need+=(python3)
command -v systemd-nspawn >/dev/null || need+=(systemd-container)
command -v rpmbuild >/dev/null || need+=(rpm)
command -v makensis >/dev/null || need+=(nsis)
command -v lintian >/dev/null || need+=(lintian)
command -v tesseract >/dev/null || need+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim)
command -v espeak-ng >/dev/null || need+=(espeak-ng)
command -v pocketsphinx_continuous >/dev/null || need+=(pocketsphinx pocketsphinx-en-us)
command -v ffmpeg >/dev/null || need+=(ffmpeg)
command -v mpv >/dev/null || need+=(mpv)
command -v pdftotext >/dev/null || need+=(poppler-utils)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
[ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || need+=(fonts-wqy-microhei)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v rsvg-convert >/dev/null || need+=(librsvg2-bin)
command -v desktop-file-validate >/dev/null || need+=(desktop-file-utils)
command -v man >/dev/null || need+=(man-db)
command -v gpgv >/dev/null && command -v gpg >/dev/null || need+=(gnupg gpgv)
command -v apt-ftparchive >/dev/null || need+=(apt-utils)
command -v createrepo_c >/dev/null || need+=(createrepo-c)
root=$(cd "$(dirname "$0")/.." && pwd)
promtool_local=$root/dist/tools/bin/promtool
# promtool alone, from the package's files: apt-get download needs no root, only the package lists.
extract_promtool() {
  command -v promtool >/dev/null || [ -x "$promtool_local" ] && return 0
  local tmp
  tmp=$(mktemp -d)
  if (cd "$tmp" && apt-get download -qq prometheus >/dev/null 2>&1) && dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x"; then
    mkdir -p "$(dirname "$promtool_local")"
    cp "$tmp/x/usr/bin/promtool" "$promtool_local"
  else
    echo "promtool: could not download Debian's prometheus package to take it from (apt-get download prometheus)" >&2
  fi
  rm -rf "$tmp"
}
if [ ${#need[@]} -eq 0 ]; then
  extract_promtool
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing ${need[*]}" >&2
  # Another apt run (unattended-upgrades, a second terminal) may hold a lock: wait for it, up to
  # ten minutes, rather than fail at once. dpkg's lock is waited for by apt itself
  # (DPkg::Lock::Timeout); the package lists' lock is not, so a held one is retried here.
  apt_waiting() {
    local waited=0 out
    while :; do
      if out=$(DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1); then return 0; fi
      if grep -q "Could not get lock" <<<"$out" && [ "$waited" -lt 600 ]; then
        [ "$waited" -eq 0 ] && echo "another apt run holds its lock; waiting for it (up to 10 minutes)" >&2
        sleep 5
        waited=$((waited + 5))
        continue
      fi
      echo "$out" >&2
      return 1
    done
  }
  apt_waiting update -qq
  apt_waiting install -y -qq "${need[@]}"
  extract_promtool
else
  echo "missing Debian packages for the tests: ${need[*]} (install them with apt-get)" >&2
  extract_promtool
fi
