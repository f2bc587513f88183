#!/usr/bin/env bash
#! Snapshot benchmark: our backend against pyatspi at its best, on the same windows in one run,
#! plus XTEST click and window capture latency beside xdotool and xwd. Prints a table.
# Usage: scripts/bench/snapshot-bench.sh [REPS]   (starts and stops its own desktop on :59)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-7}"; N=59
scripts/install-deps.sh
cargo build -q --release --example bench
BENCH="${CARGO_TARGET_DIR:-target}/release/examples/bench"
bench_desktop $N
APPS=(gtk3 mousepad calc gtk4 featherpad firefox chromium qt6)
bench_launch "${APPS[@]}"
sleep 2  # let the browsers finish loading the page
LIST=$("${CARGO_TARGET_DIR:-target}/release/mcp-computer-use" list 2>/dev/null || cargo run -q --release -- list)
printf '%-22s %7s %9s %7s %9s %7s\n' app nodes ours_ms py_nodes py_ms "py/ours"
for a in gtk3 mousepad calc gtk4 featherpad firefox chromium; do
  IFS=$'\t' read -r id title < <(bench_wid "${PID[$a]}")
  # Alternate the two sides twice and keep each side's better median, so neither pays for the
  # other apps settling down.
  ours1=$("$BENCH" snapshot "$REPS" "$id")
  py1=$(/usr/bin/python3 scripts/bench/pyatspi_walk.py "$REPS" "${PID[$a]}" "$title" 2>/dev/null)
  ours2=$("$BENCH" snapshot "$REPS" "$id")
  py2=$(/usr/bin/python3 scripts/bench/pyatspi_walk.py "$REPS" "${PID[$a]}" "$title" 2>/dev/null)
  python3 - "$a" "$ours1" "$ours2" "$py1" "$py2" <<'PY'
import json, sys
a = sys.argv[1]
o = min((json.loads(x) for x in sys.argv[2:4]), key=lambda r: r["median_ms"])
p = min((json.loads(x) for x in sys.argv[4:6]), key=lambda r: r["median_ms"])
print("%-22s %7d %9.1f %7d %9.1f %7.2fx" % (a, o["nodes"], o["median_ms"], p["nodes"], p["median_ms"], p["median_ms"] / o["median_ms"]))
PY
done
# Input and capture on the Qt fixture: click its label (no effect), capture the window.
IFS=$'\t' read -r id title < <(bench_wid "${PID[qt6]}")
xid=${id#x11:}
ours=$("$BENCH" input "$REPS" "$id" 40 20)
read -r ax ay < <(xwininfo -id "$xid" | awk '/Absolute upper-left X/{x=$4} /Absolute upper-left Y/{y=$4} END{print x+40, y+20}')
t_xdo=$(python3 - "$REPS" "$ax" "$ay" "$xid" <<'PY'
import statistics, subprocess, sys, time
reps, x, y, xid = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
def med(cmd):
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL); ts.append((time.perf_counter() - t) * 1000)
    return statistics.median(ts)
print("%.2f %.2f %.2f" % (med(["xdotool", "mousemove", x, y, "click", "1"]),
                          med(["xdotool", "mousemove", x, y, "mousedown", "1", "mouseup", "1"]),
                          med(["xwd", "-silent", "-id", xid])))
PY
)
read -r xdo_click xdo_fast xwd_ms <<<"$t_xdo"
python3 - "$ours" "$xdo_click" "$xdo_fast" "$xwd_ms" <<'PY'
import json, sys
o = json.loads(sys.argv[1])
print("\nXTEST click (ours, in process, incl. activation check + sync): %.2f ms | xdotool click: %s ms | xdotool mousedown/up: %s ms"
      % (o["click_median_ms"], sys.argv[2], sys.argv[3]))
print("window capture 300x200 (ours, GetImage + RGBA + obscured check): %.2f ms | xwd -id: %s ms" % (o["capture_median_ms"], sys.argv[4]))
PY
