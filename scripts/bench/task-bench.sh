#!/usr/bin/env bash
#! The task benchmark: short tasks on real apps (gnome-calculator, a JavaScript todo app in
#! Firefox and Chromium, Mousepad with the GTK 3 file chooser, LibreOffice Calc and its Save
#! dialog, Thunar, kcalc, the GTK 4 and Qt 5 Save dialogs, the Rust book's 324-row table in both
#! browsers, gtk3-widget-factory's combo boxes, a web select), each driven
#! through the MCP tools as an agent would and checked independently (a file on disk, the page's
#! window title, pyatspi). Prints done, tool calls, result tokens (o200k) and seconds per task.
# Usage: scripts/bench/task-bench.sh [TASK...]   (starts and stops its own desktop on :63)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=63
TASKS=("$@"); [ ${#TASKS[@]} -gt 0 ] || TASKS=(calculator todo-firefox todo-chromium mousepad-save calc-row calc-formula calc-save-xlsx thunar-rename kcalc chooser-gtk4 chooser-qt5 chooser-kde table-firefox table-chromium gtk3-combo web-select)
[ -n "${MCP_CU_BIN:-}" ] || cargo build -q --release
BIN="${MCP_CU_BIN:-${CARGO_TARGET_DIR:-target}/release/mcp-computer-use}"
PY="${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python"
WORK="$(mktemp -d)"
BENCH_ON_EXIT='pkill -KILL -f "$WORK" || true; rm -rf "$WORK"'
bench_desktop $N
export MCP_CU_SESSIONS_DIR="$WORK/sessions" MCP_CU_AUTOSTART_OLLAMA=0 MCP_CU_MODEL=none
apps=()
for t in "${TASKS[@]}"; do case $t in
  calculator) apps+=(calc) ;; todo-firefox) apps+=(firefox-todo) ;; todo-chromium) apps+=(chromium-todo) ;;
  mousepad-save) apps+=(mousepad) ;; kcalc) apps+=(kcalc) ;;
  table-firefox) apps+=(firefox-page:rust-platform-support.html) ;;
  table-chromium) apps+=(chromium-page:rust-platform-support.html) ;;
  gtk3-combo) apps+=(gtk3) ;; web-select) apps+=(chromium-controls) ;;
  chooser-gtk4|chooser-qt5|chooser-kde) export CHOOSER_DIR="$WORK"; apps+=("$t") ;;
  thunar-rename)
    mkdir -p "$WORK/files"; echo draft > "$WORK/files/report.odt"; echo list > "$WORK/files/notes.txt"
    export THUNAR_DIR="$WORK/files"; apps+=(thunar) ;;
  calc-row|calc-formula|calc-save-xlsx) calc=1 ;;
esac; done
if [ -n "${calc:-}" ]; then  # one sheet for the calc tasks, in the order given
    printf 'Item,Qty,Price\nApples,3,1.5\nPears,4,2\nTotal,=SUM(B2:B3),=B2*C2+B3*C3\n' > "$WORK/data.csv"
    SAL_USE_VCLPLUGIN=gtk3 soffice --norestore "-env:UserInstallation=file://$WORK/convert" --headless \
      --convert-to ods --outdir "$WORK" "$WORK/data.csv" >/dev/null 2>&1
    SAL_USE_VCLPLUGIN=gtk3 soffice --norestore --nologo "-env:UserInstallation=file://$WORK/lo" --calc \
      "$WORK/data.ods" >/dev/null 2>&1 &
fi
[ ${#apps[@]} -eq 0 ] || bench_launch "${apps[@]}"
"$PY" scripts/bench/task_bench.py "$BIN" "$WORK" "${TASKS[@]}"
