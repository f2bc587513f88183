#!/usr/bin/env bash
# run.sh — audit mcp-computer-use's input path with cua-auto-harness 0.5.0 (Layer A, the whole
# runner catalog: clicks, scrolls, typing, keys, sequences, drags; 100 probes).
#
#   scripts/harness/run.sh [--reps N] [--display N] [--out DIR] [--entries a,b] [--keep-desktop]
#                          [--stock-wm] [-- extra autoharness test flags]
#
# Input goes ONLY through our MCP tools gui_list / gui_state / gui_action (official MCP Python SDK,
# one `mcp-computer-use serve` over stdio for the run): see autoharness_mcp.py next to this file.
#
# Env: VENV (default /var/tmp/mcp-cu-venv: a venv with the MCP SDK; its python3 must have tkinter,
#      it runs the Tk probe too), MCP_CU_BIN (default: the debug build in CARGO_TARGET_DIR or target/),
#      AH_WHEEL (default /tmp/cah/cua_auto_harness-0.5.0-py3-none-any.whl, else PyPI),
#      AH_MCP_CONFIRM (retry|never|always, see autoharness_mcp.py).
# The desktop is the project's (scripts/desktop/start-desktop.sh N); when this script started it,
# it stops it at the end (--purge) unless --keep-desktop.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
VENV="${VENV:-/var/tmp/mcp-cu-venv}"
PY="$VENV/bin/python"
AH_WHEEL="${AH_WHEEL:-/tmp/cah/cua_auto_harness-0.5.0-py3-none-any.whl}"
export MCP_CU_BIN="${MCP_CU_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/mcp-computer-use}"

REPS=1; DISP=63; OUT=""; ENTRIES=""; KEEP=0; STOCK_WM=0; EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS="$2"; shift 2;;
    --display) DISP="${2#:}"; shift 2;;
    --out) OUT="$2"; shift 2;;
    --entries) ENTRIES="$2"; shift 2;;
    --keep-desktop) KEEP=1; shift;;
    --stock-wm) STOCK_WM=1; shift;;
    --) shift; EXTRA=("$@"); break;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
OUT="${OUT:-/tmp/ah-runs/mcp-$(date +%Y%m%d-%H%M%S)}"

# ---- 1. the harness, python-xlib (raw X tap + the probe's wheel pad) and the MCP SDK ----------
[ -x "$PY" ] || { echo "no venv at $VENV (needs the MCP SDK: mcp==2.3.0)" >&2; exit 2; }
"$PY" -c 'import mcp' || { echo "$VENV has no MCP SDK" >&2; exit 2; }
if ! "$PY" -c 'import autoharness' 2>/dev/null; then
  if [ -f "$AH_WHEEL" ]; then "$PY" -m pip install -q "$AH_WHEEL"
  else "$PY" -m pip install -q 'cua-auto-harness==0.5.0'; fi
fi
"$PY" -c 'import Xlib' 2>/dev/null || "$PY" -m pip install -q python-xlib
"$PY" -c 'import tkinter' || { echo "$PY has no tkinter: the Tk probe cannot run" >&2; exit 2; }
[ -x "$MCP_CU_BIN" ] || { echo "no server binary at $MCP_CU_BIN" >&2; exit 2; }

# ---- 2. the desktop -------------------------------------------------------------------------
STARTED=0
if [ -f "/tmp/deskenv-$DISP/pids" ] && xdpyinfo -display ":$DISP" >/dev/null 2>&1; then
  echo "using the running desktop :$DISP"
else
  "$ROOT/scripts/desktop/start-desktop.sh" "$DISP" >/dev/null
  STARTED=1
fi
stop_desktop() {
  if [ "$STARTED" = 1 ] && [ "$KEEP" = 0 ]; then
    "$ROOT/scripts/desktop/stop-desktop.sh" "$DISP" --purge >/dev/null 2>&1 || true
  fi
}
trap stop_desktop EXIT

# Openbox's stock rc.xml grabs Alt+buttons on every client window (context "Frame": Alt+Left
# press/drag = move, Alt+Right = resize, Alt+Middle = lower, Alt+wheel = desktops), so no app ever
# receives an alt+click or alt+drag there (the raw X tap sees the input, the probe does not). The
# harness's reference desktop (GNOME) uses Super for that, and alt+click/alt+drag are probes of
# the catalog. Unless --stock-wm: give this desktop's openbox (its XDG_CONFIG_HOME is the desktop's
# state dir) the stock rc.xml without those pointer bindings; its keyboard bindings stay (the
# os_global probes are meant to be WM-consumed and are judged by the raw tap).
if [ "$STOCK_WM" = 0 ]; then
  OBCONF="/tmp/deskenv-$DISP/config/openbox"
  mkdir -p "$OBCONF"
  "$PY" - "$OBCONF/rc.xml" <<'PYEOF'
import re, sys
src = open("/etc/xdg/openbox/rc.xml", encoding="utf-8").read()
out, n = re.subn(r'<context name="Frame">.*?</context>', '<context name="Frame"></context>',
                 src, count=1, flags=re.S)
assert n == 1, "no Frame context in /etc/xdg/openbox/rc.xml"
open(sys.argv[1], "w", encoding="utf-8").write(out)
PYEOF
  DISPLAY=":$DISP" openbox --reconfigure
  sleep 0.5
  echo "openbox on :$DISP: Alt+pointer bindings (context Frame) removed ($OBCONF/rc.xml)"
fi

# ---- 3. the run -----------------------------------------------------------------------------
mkdir -p "$OUT"
export AH_MCP_DISPLAY="$DISP"
export AH_MCP_DESKENV="/tmp/deskenv-$DISP/env"
export AH_MCP_WORKDIR="$OUT/mcp"
export AH_MCP_PYTHON_DIR="$VENV/bin"       # the guest's python3: tkinter + python-xlib
ARGS=(test --adapter "$HERE/autoharness_mcp.py:mcp_computer_use" --no-tui --reps "$REPS"
      --out "$OUT/run")
[ -n "$ENTRIES" ] && ARGS+=(--entries "$ENTRIES")
echo "command: $PY -m autoharness ${ARGS[*]} ${EXTRA[*]:-}"
set +e
( cd "$OUT" && "$PY" -m autoharness "${ARGS[@]}" "${EXTRA[@]}" ) 2>&1 | tee "$OUT/harness.log"
rc=${PIPESTATUS[0]}
set -e

# ---- 4. summary -----------------------------------------------------------------------------
"$PY" "$HERE/summarize.py" "$OUT" | tee "$OUT/summary.txt"
exit "$rc"
