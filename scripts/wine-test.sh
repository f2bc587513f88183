#!/usr/bin/env bash
#! Builds the Windows-target unit tests (x86_64-pc-windows-gnu, mingw) and runs them under Wine:
#! the Windows adapter's pure modules and cu-core, compiled as Windows code with the `uia`
#! feature on, run by a Windows loader, including the Win32 glue against windows the tests make
#! (listing, capture, minimized and closed windows, the desktop probe) on a private Xvfb. UI
#! Automation itself cannot run under Wine 8.0 (no CUIAutomation class; see
#! ../shared/xcheck/README.md): a test checks that this is reported as GUI_UNAVAILABLE.
# Usage: scripts/wine-test.sh [--build-only]   (--build-only: compile the tests, run nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in /usr/lib/wine/wine64 /usr/bin/x86_64-w64-mingw32-gcc /usr/bin/rustc; do
  [ -x "$tool" ] || { echo "wine-test needs $tool (scripts/install-deps.sh installs it)" >&2; exit 1; }
done
export PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${XCHECK_TARGET_DIR:-${CARGO_TARGET_DIR:-target}/xcheck}"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64
unset RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER
TESTS=(-Zbuild-std --target x86_64-pc-windows-gnu -p cu-backend-windows -p cu-core)
if [ "${1:-}" = --build-only ]; then
  exec /usr/bin/cargo test -q --no-run "${TESTS[@]}"
fi
WORK="${WINE_TEST_DIR:-/var/tmp/mcp-cu-wine}"
mkdir -p "$WORK"
export WINEPREFIX="$WORK/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "[wine-test] creating the Wine prefix" >&2
  /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1
  /usr/lib/wine/wineserver -w
fi
SYS32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$SYS32/bcryptprimitives.dll" ]; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$WORK/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32 -Wl,--kill-at
  cp "$WORK/bcryptprimitives.dll" "$SYS32/"
fi
# Wine needs an X display to create windows: a private Xvfb, unless one is given.
if [ -z "${WINE_TEST_DISPLAY:-}" ]; then
  n=93
  while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  XVFB_PID=$!
  trap 'kill $XVFB_PID 2>/dev/null || true' EXIT
  for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
  WINE_TEST_DISPLAY=":$n"
fi
export DISPLAY="$WINE_TEST_DISPLAY"
echo "[wine-test] cargo test ${TESTS[*]}" >&2
/usr/bin/cargo test -q "${TESTS[@]}"
/usr/lib/wine/wineserver -k 2>/dev/null || true
echo "[wine-test] ok" >&2
