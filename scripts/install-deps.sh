#!/usr/bin/env bash
#! Installs what the test suite needs on a fresh Debian 12 machine, skipping what is present.
# Usage: scripts/install-deps.sh [--xcheck]   (idempotent; needs root for apt)
set -euo pipefail
APT_PKGS=(
  # headless X11 desktop + AT-SPI
  xvfb openbox dbus-daemon dbus-bin at-spi2-core x11-utils x11-xserver-utils libglib2.0-bin
  dconf-gsettings-backend dconf-cli python3-pyatspi xdotool wmctrl x11-apps procps
  # fixture apps
  gtk-3-examples gtk-4-examples gnome-calculator zenity mousepad featherpad
  python3-pyqt5 python3-pyqt6 firefox-esr chromium
  # fonts so text renders and captures are not blank
  fonts-dejavu-core
)
XCHECK_PKGS=(rustc-web cargo-web rust-web-src rust-web-clippy)
want=("${APT_PKGS[@]}")
[ "${1:-}" = --xcheck ] || [ "${MCP_CU_XCHECK:-1}" = 1 ] && want+=("${XCHECK_PKGS[@]}")
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[install-deps] apt: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "[install-deps] apt packages present" >&2
fi
