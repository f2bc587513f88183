#!/usr/bin/env bash
#! The task benchmark: short tasks on real apps (gnome-calculator, a JavaScript todo app in
#! Firefox and Chromium, Mousepad with the GTK 3 file chooser and its Preferences, LibreOffice Calc
#! (typing, sorting, its Save dialog) and Writer (Insert Table), Thunar, kcalc, the GTK 4 and Qt 5
#! Save dialogs, FeatherPad's Qt Preferences (combo box, check box, spin button) and Save dialog,
#! the Rust book's 324-row page in both browsers (a row, a whole table, a link below the fold),
#! gtk3/gtk4-widget-factory's combo boxes and spin buttons, a web select, a sign-up form in both
#! browsers), each driven through the MCP tools as an agent would and checked independently (a
#! file on disk, the window title, gsettings, pyatspi). Prints done, tool calls, result tokens
#! (o200k) and seconds per task.
# Usage: scripts/bench/task-bench.sh [TASK...]   (starts and stops its own desktop on :63)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
N=63
# Tasks sharing an app run in this order: calc-sort after the calc tasks that read the sheet as
# it was, thunar-mkdir after thunar-rename (which lists the folder), link-below after
# table-chromium (it navigates away and back).
TASKS=("$@"); [ ${#TASKS[@]} -gt 0 ] || TASKS=(calculator todo-firefox todo-chromium form-chromium
  form-firefox mousepad-save mousepad-prefs calc-row calc-formula calc-save-xlsx calc-type calc-sort
  writer-table thunar-rename thunar-mkdir kcalc chooser-gtk4 chooser-qt5 chooser-kde table-firefox
  table-list table-chromium link-below gtk3-combo gtk3-spin gtk4-spin web-select qt-combo qt-check
  qt-spin featherpad-save)
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
  mousepad-save|mousepad-prefs) apps+=(mousepad) ;; kcalc) apps+=(kcalc) ;;
  table-firefox|table-list) apps+=(firefox-page:rust-platform-support.html) ;;
  table-chromium|link-below) apps+=(chromium-page:rust-platform-support.html) ;;
  gtk3-combo|gtk3-spin) apps+=(gtk3) ;; gtk4-spin) apps+=(gtk4) ;; web-select) apps+=(chromium-controls) ;;
  form-chromium) apps+=(chromium-page:form.html) ;; form-firefox) apps+=(firefox-page:form.html) ;;
  qt-combo|qt-check|qt-spin|featherpad-save) apps+=(featherpad) ;; writer-table) apps+=(lo-writer) ;;
  chooser-gtk4|chooser-qt5|chooser-kde) export CHOOSER_DIR="$WORK"; apps+=("$t") ;;
  thunar-rename|thunar-mkdir)
    mkdir -p "$WORK/files"; echo draft > "$WORK/files/report.odt"; echo list > "$WORK/files/notes.txt"
    export THUNAR_DIR="$WORK/files"; apps+=(thunar) ;;
  calc-row|calc-formula|calc-save-xlsx|calc-type|calc-sort) calc=1 ;;
esac; done
if [ -n "${calc:-}" ]; then  # one sheet for the calc tasks, in the order given
    printf 'Item,Qty,Price\nApples,3,1.5\nPears,4,2\nTotal,=SUM(B2:B3),=B2*C2+B3*C3\n' > "$WORK/data.csv"
    SAL_USE_VCLPLUGIN=gtk3 soffice --norestore "-env:UserInstallation=file://$WORK/convert" --headless \
      --convert-to ods --outdir "$WORK" "$WORK/data.csv" >/dev/null 2>&1
    SAL_USE_VCLPLUGIN=gtk3 soffice --norestore --nologo "-env:UserInstallation=file://$WORK/lo" --calc \
      "$WORK/data.ods" >/dev/null 2>&1 &
fi
[ ${#apps[@]} -eq 0 ] || { mapfile -t apps < <(printf '%s\n' "${apps[@]}" | awk '!seen[$0]++'); bench_launch "${apps[@]}"; }
"$PY" scripts/bench/task_bench.py "$BIN" "$WORK" "${TASKS[@]}"
