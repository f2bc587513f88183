#!/usr/bin/env bash
#! Token benchmark: the default gui_state outline (o200k_base tokens, bytes, per listed element)
#! for each fixture app, and on Chromium's document subtree against Playwright MCP's
#! browser_snapshot of the same page, in one run; plus observe -> act -> observe on the calculator.
# Usage: scripts/bench/token-bench.sh     (starts and stops its own desktop on :60)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=60
scripts/install-deps.sh
PW_DIR="${MCP_CU_PW_DIR:-/var/tmp/mcp-cu-pw}"
[ -x "$PW_DIR/node_modules/.bin/playwright-mcp" ] || { mkdir -p "$PW_DIR"; (cd "$PW_DIR" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-audit --no-fund --loglevel=error @playwright/mcp@0.0.83 >&2); }
cargo build -q --release --example bench
BENCH="${CARGO_TARGET_DIR:-target}/release/examples/bench"
PY="${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python"
bench_desktop $N
PAGES=(form.html table.html longlist.html nav.html)
APPS=(gtk3 calc qt6 mousepad featherpad gtk4 firefox chromium chromium-controls "${PAGES[@]/#/chromium-page:}")
bench_launch "${APPS[@]}"
sleep 2
LIST=$(cargo run -q --release -- list)
wid() { bench_wid "$1" | cut -f1; }
echo "Default gui_state outline (interactive + text elements; points=true adds @x,y, bounds=true x,y wxh):"
printf '%-22s %9s %7s %7s %9s\n' app elements tokens bytes tok/elem
for a in gtk3 calc qt6 mousepad featherpad gtk4 firefox; do
  "$BENCH" outline "$(wid "${PID[$a]}")" | python3 -c "import json,sys; r=json.load(sys.stdin); print('%-22s %9d %7d %7d %9.1f' % (sys.argv[1], r['elements'], r['tokens'], r['bytes'], r['tokens_per_element']))" "$a"
done
echo
# Playwright MCP refuses file:// URLs: serve the fixtures over loopback HTTP for it.
HTTP_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$HTTP_PORT" --bind 127.0.0.1 --directory tests/fixtures >/dev/null 2>&1 &
HTTP_PID=$!
BENCH_ON_EXIT='kill $HTTP_PID 2>/dev/null'
echo "Chromium page (as gui_state page=true: the window line and the showing document) vs Playwright MCP 0.0.83 browser_snapshot (no bounds), same page:"
printf '%-22s %12s %12s %10s\n' page ours_tokens pw_tokens pw/ours
pairs=("chromium:A11y Fixture Page:fixture.html" "chromium-controls:Controls benchmark:controls.html")
for f in "${PAGES[@]}"; do
  pairs+=("chromium-page:$f:$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' "tests/fixtures/$f"):$f")
done
for pair in "${pairs[@]}"; do
  file=${pair##*:}; rest=${pair%:*}; title=${rest##*:}; key=${rest%:*}
  # A page whose renderer exposes no tree (Chromium, now and then) is said, not fatal.
  ours=$("$BENCH" outline "$(wid "${PID[$key]}")#$title") || { echo "$file: no page within 30 s"; continue; }
  pw=$("$PY" scripts/bench/playwright_snapshot.py "$PW_DIR/node_modules/.bin/playwright-mcp" "http://127.0.0.1:$HTTP_PORT/$file" | "$BENCH" tokens)
  python3 - "$file" "$ours" "$pw" <<'PY'
import json, sys
o, p = json.loads(sys.argv[2]), json.loads(sys.argv[3])
print("%-22s %7d (%3d el) %12d %9.2fx" % (sys.argv[1], o["tokens"], o["elements"], p["tokens"], p["tokens"] / o["tokens"]))
PY
done
echo
echo "observe -> act -> observe on gnome-calculator (median of 5; act includes the effect check), and the answers in o200k tokens:"
"$BENCH" loop 5 "$(wid "${PID[calc]}")"
