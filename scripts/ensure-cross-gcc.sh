#!/usr/bin/env bash
# Install Debian's aarch64 cross compiler when missing (only possible as root, with apt).
set -euo pipefail
command -v aarch64-linux-gnu-gcc >/dev/null && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing gcc-aarch64-linux-gnu (needed for the arm64 shim)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null
else
  echo "aarch64-linux-gnu-gcc is missing: install Debian's gcc-aarch64-linux-gnu" >&2
  exit 1
fi
