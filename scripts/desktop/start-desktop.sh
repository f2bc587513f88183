#!/usr/bin/env bash
# start-desktop.sh [DISPLAY_NUM]  — the project's headless X11 desktop with AT-SPI for GUI-automation tests.
#
# Brings up (in the background, idempotently):
#   Xvfb :N  ->  openbox (EWMH: _NET_CLIENT_LIST/_NET_ACTIVE_WINDOW)  ->  private D-Bus session bus
#   -> at-spi-bus-launcher (a11y bus) -> at-spi2-registryd, with accessibility switched on for
#   GTK3 / GTK4 / Qt5 / Qt6 / Firefox / Chromium.
# Writes:  $STATE/env   (source it: DISPLAY, DBUS_SESSION_BUS_ADDRESS, DESKENV_A11Y_BUS_ADDRESS, ...)
#          $STATE/pids  (name=pid lines, used by stop-desktop.sh)
#          $STATE/log/*.log
# STATE defaults to /tmp/deskenv-N (override with DESKENV_STATE_DIR).
# Env knobs: DESKENV_SCREEN (default 1920x1080x24), DESKENV_WM (openbox|none, default openbox),
#            DESKENV_TIMEOUT (seconds to wait for readiness, default 20).
# Debian bookworm packages (apt-get install --no-install-recommends):
#   xvfb openbox dbus-daemon dbus-bin at-spi2-core x11-utils procps libglib2.0-bin dconf-gsettings-backend
#   test side: python3-pyatspi (walks), xdotool wmctrl x11-apps imagemagick (input/capture),
#   apps: gtk-3-examples gtk-4-examples gnome-calculator zenity mousepad featherpad python3-pyqt5
#   python3-pyqt6 firefox-esr chromium   (see launch-fixture-apps.sh)
# Default display 57 (99 is popular elsewhere); the script refuses a display whose lock is held by another pid.
set -euo pipefail

N="${1:-${DESKENV_DISPLAY:-57}}"
N="${N#:}"
STATE="${DESKENV_STATE_DIR:-/tmp/deskenv-$N}"
SCREEN="${DESKENV_SCREEN:-1920x1080x24}"
WM="${DESKENV_WM:-openbox}"
TIMEOUT="${DESKENV_TIMEOUT:-20}"
LOG="$STATE/log"
ENVF="$STATE/env"
PIDF="$STATE/pids"

say() { echo "[start-desktop:$N] $*" >&2; }
# alive = exists and is not a zombie (PID 1 here reaps re-parented orphans late)
alive() { local st; [ -n "${1:-}" ] || return 1; st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
          [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
pid_of() { [ -f "$PIDF" ] && sed -n "s/^$1=//p" "$PIDF" | tail -1; }
now_ms() { date +%s%3N; }

# wait_for TIMEOUT_S CMD... : poll every 50 ms
wait_for() {
  local deadline=$(( $(now_ms) + $1 * 1000 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(now_ms)" -lt "$deadline" ] || return 1
    sleep 0.05
  done
}

a11y_ready() {
  # registryd answers on the a11y bus -> desktop is usable by AT-SPI clients
  [ -f "$ENVF" ] || return 1
  ( . "$ENVF"
    [ -n "${DESKENV_A11Y_BUS_ADDRESS:-}" ] || exit 1
    dbus-send --bus="$DESKENV_A11Y_BUS_ADDRESS" --print-reply --dest=org.a11y.atspi.Registry \
      /org/a11y/atspi/accessible/root org.freedesktop.DBus.Properties.Get \
      string:org.a11y.atspi.Accessible string:ChildCount >/dev/null 2>&1 )
}

t0=$(now_ms)

# ---------- idempotency: everything already up? ----------
if [ -f "$PIDF" ] && alive "$(pid_of xvfb)" && alive "$(pid_of dbus)" && alive "$(pid_of atspi_launcher)" \
   && { [ "$WM" != openbox ] || alive "$(pid_of wm)"; } && a11y_ready; then
  say "already running (state $STATE)"; echo "$ENVF"; exit 0
fi
# partial / stale state: tear it down first
if [ -f "$PIDF" ]; then
  say "stale state found, cleaning up"
  "$(dirname "$0")/stop-desktop.sh" "$N" >/dev/null 2>&1 || true
fi

# fresh per-start app state (apps killed at stop leave "restore session?" prompts, recent files...)
"$(dirname "$0")/unmount-under.sh" "$STATE"
[ "${DESKENV_KEEP_STATE:-0}" = 1 ] || rm -rf "$STATE/config" "$STATE/cache" "$STATE/data" "$STATE/runtime"
mkdir -p "$LOG" "$STATE/runtime" "$STATE/config" "$STATE/cache" "$STATE/data"
chmod 700 "$STATE/runtime"
: > "$PIDF"

export DISPLAY=":$N"
export XDG_RUNTIME_DIR="$STATE/runtime"
export XDG_CONFIG_HOME="$STATE/config"
export XDG_CACHE_HOME="$STATE/cache"
export XDG_DATA_HOME="$STATE/data"
export XDG_SESSION_TYPE=x11
export GDK_BACKEND=x11
export QT_QPA_PLATFORM=xcb
unset WAYLAND_DISPLAY NO_AT_BRIDGE GTK_A11Y AT_SPI_BUS_ADDRESS || true

# ---------- 1. Xvfb ----------
if [ -e "/tmp/.X11-unix/X$N" ] || [ -e "/tmp/.X$N-lock" ]; then
  lockpid=$({ tr -d ' ' < "/tmp/.X$N-lock"; } 2>/dev/null || true)
  if alive "$lockpid"; then
    say "display :$N is already owned by pid $lockpid (not ours) — pick another number"; exit 1
  fi
  rm -f "/tmp/.X$N-lock" "/tmp/.X11-unix/X$N"
fi
# -noreset: without it Xvfb regenerates when its last client (the readiness probe) leaves, and a
# client connecting during that moment fails ("openbox: Failed to open the display"), seen in CI.
Xvfb ":$N" -screen 0 "$SCREEN" -nolisten tcp -noreset -ac +extension XTEST +extension RANDR \
     +extension GLX -dpi 96 >"$LOG/xvfb.log" 2>&1 &
echo "xvfb=$!" >> "$PIDF"
wait_for "$TIMEOUT" xdpyinfo -display ":$N" || { say "Xvfb did not come up, see $LOG/xvfb.log"; exit 1; }

# ---------- 2. D-Bus session bus (private, socket in state dir) ----------
BUS_SOCK="$STATE/bus"
rm -f "$BUS_SOCK"
dbus-daemon --session --nofork --nopidfile --address="unix:path=$BUS_SOCK" \
    >"$LOG/dbus.log" 2>&1 &
echo "dbus=$!" >> "$PIDF"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$BUS_SOCK"
wait_for "$TIMEOUT" dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId \
  || { say "session bus did not come up"; exit 1; }

# ---------- 3. window manager ----------
if [ "$WM" = openbox ]; then
  openbox --sm-disable >"$LOG/wm.log" 2>&1 &
  echo "wm=$!" >> "$PIDF"
fi

# ---------- 4. AT-SPI bus + registry ----------
# --a11y=1 sets org.a11y.Status.IsEnabled=true (what Qt, Firefox, Chromium and GTK4 look at)
/usr/libexec/at-spi-bus-launcher --launch-immediately --a11y=1 >"$LOG/atspi-launcher.log" 2>&1 &
echo "atspi_launcher=$!" >> "$PIDF"
get_a11y_addr() {
  dbus-send --session --print-reply=literal --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress \
    2>/dev/null | tr -d ' \n'
}

A11Y_ADDR=""
deadline=$(( $(now_ms) + TIMEOUT * 1000 ))
while [ -z "$A11Y_ADDR" ]; do
  A11Y_ADDR="$(get_a11y_addr || true)"
  [ -n "$A11Y_ADDR" ] && break
  [ "$(now_ms)" -lt "$deadline" ] || { say "a11y bus did not come up, see $LOG/atspi-launcher.log"; exit 1; }
  sleep 0.05
done

# gsettings: toolkit-accessibility (GTK/Chromium read it); dconf db lives in $XDG_CONFIG_HOME/dconf
if command -v gsettings >/dev/null; then
  gsettings set org.gnome.desktop.interface toolkit-accessibility true >/dev/null 2>&1 || true
  gsettings set org.gnome.desktop.a11y.applications screen-reader-enabled false >/dev/null 2>&1 || true
  # keep gnome-calculator off the network (currency-rate downloads)
  gsettings set org.gnome.calculator refresh-interval 0 >/dev/null 2>&1 || true
fi

# Publish the a11y bus address on the X root window (AT_SPI_BUS). Debian's launcher does not
# set it here; without it Qt 5.15 registers only ~50% of the time (race in its DBusConnection).
xprop -display ":$N" -root -f AT_SPI_BUS 8s -set AT_SPI_BUS "$A11Y_ADDR"


# ---------- 5. env file ----------
cat > "$ENVF.tmp" <<ENV
# generated by start-desktop.sh $N — source me
export DISPLAY=:$N
export DBUS_SESSION_BUS_ADDRESS='unix:path=$BUS_SOCK'
# NOTE: deliberately NOT exporting AT_SPI_BUS_ADDRESS: Qt 6.4 never registers when it is set
# (it emits enabledChanged before its bridge is listening). Clients find the bus via the
# AT_SPI_BUS root-window property or org.a11y.Bus.GetAddress on the session bus.
export DESKENV_A11Y_BUS_ADDRESS='$A11Y_ADDR'
export XDG_RUNTIME_DIR='$STATE/runtime'
export XDG_CONFIG_HOME='$STATE/config'
export XDG_CACHE_HOME='$STATE/cache'
export XDG_DATA_HOME='$STATE/data'
export XDG_SESSION_TYPE=x11
export GDK_BACKEND=x11
export QT_QPA_PLATFORM=xcb
export QT_ACCESSIBILITY=1
export QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1
export GNOME_ACCESSIBILITY=1
export ACCESSIBILITY_ENABLED=1
unset NO_AT_BRIDGE AT_SPI_BUS_ADDRESS
export GTK_A11Y=atspi
# GTK4's default GL renderer runs on llvmpipe here: gtk4-widget-factory then never registers on
# AT-SPI (main loop starved, 90-150% CPU). cairo is cheap and reliable; unset it to test GL.
export GSK_RENDERER=cairo
export MOZ_ENABLE_WAYLAND=0
unset WAYLAND_DISPLAY
ENV
mv "$ENVF.tmp" "$ENVF"

# ---------- 6. wait for the registry (activated on the a11y bus) ----------
# first call auto-starts at-spi2-registryd via D-Bus activation on the a11y bus
wait_for "$TIMEOUT" a11y_ready || { say "AT-SPI registry not answering"; exit 1; }
rpid=$(dbus-send --bus="$A11Y_ADDR" --print-reply=literal --dest=org.freedesktop.DBus / \
       org.freedesktop.DBus.GetConnectionUnixProcessID string:org.a11y.atspi.Registry 2>/dev/null | awk '{print $2}')
[ -n "$rpid" ] && echo "registryd=$rpid" >> "$PIDF"
dpid=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
       org.freedesktop.DBus.GetConnectionUnixProcessID string:ca.desrt.dconf 2>/dev/null | awk '{print $2}')
[ -n "$dpid" ] && echo "dconf=$dpid" >> "$PIDF"
# the a11y dbus-daemon is a child of the launcher
for c in $(pgrep -P "$(pid_of atspi_launcher)" 2>/dev/null || true); do echo "a11y_dbus=$c" >> "$PIDF"; done
# The window manager must really be up: window lists, activation and stacking depend on it.
if [ "$WM" = openbox ]; then
  wm_ready() { xprop -display ":$N" -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q 'window id'; }
  for attempt in 1 2 3; do
    wait_for 5 wm_ready && break
    say "openbox is not up (attempt $attempt): $(tail -1 "$LOG/wm.log" 2>/dev/null); restarting it"
    openbox --sm-disable >"$LOG/wm.log" 2>&1 &
    echo "wm=$!" >> "$PIDF"
  done
  wm_ready || { say "openbox did not start, see $LOG/wm.log"; exit 1; }
fi

say "ready in $(( $(now_ms) - t0 )) ms (state $STATE)"
echo "$ENVF"
