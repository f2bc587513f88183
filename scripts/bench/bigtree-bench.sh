#!/usr/bin/env bash
#! Big trees through MCP: the default gui_state of LibreOffice Calc on a filled sheet, a 3,000-row
#! web table in Chromium and the GTK 3 file chooser on a folder of 5,000 files, as an agent sees
#! it (the official Python SDK against the release binary). Prints per window: the first and the
#! median call, elements, o200k tokens, and the notice of what was left out; then whether each
#! stays under 1 s and 8,000 tokens.
# Usage: scripts/bench/bigtree-bench.sh [REPS]   (starts and stops its own desktop on :64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-5}"; N=64
bench_bin
WORK="$(mktemp -d)"
BENCH_ON_EXIT='pkill -KILL -f "$WORK" || true; rm -rf "$WORK"'
mkdir -p "$WORK/files"
for i in $(seq -w 1 5000); do : > "$WORK/files/file-$i.txt"; done
# A sheet filled beyond the screen: 400 rows of 12 columns, text and formulas.
python3 - "$WORK/sheet.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write(",".join("Col %d" % c for c in range(1, 13)) + "\n")
    for r in range(2, 402):
        f.write(",".join(["Item %d" % r] + [str(r * c) for c in range(2, 12)] + ["=SUM(B%d:K%d)" % (r, r)]) + "\n")
PY
soffice --norestore "-env:UserInstallation=file://$WORK/convert" --headless \
  --convert-to ods --outdir "$WORK" "$WORK/sheet.csv" >/dev/null 2>&1
bench_desktop $N
export TABLE_ROWS=3000 CHOOSER_DIR="$WORK/files" CALC_FILE="$WORK/sheet.ods"
APPS=(lo-calc chromium-table chooser-gtk3)
bench_launch "${APPS[@]}"
export MCP_CU_SESSIONS_DIR="$WORK/sessions" MCP_CU_AUTOSTART_OLLAMA=0 MCP_CU_MODEL=none
"$PY" scripts/bench/bigtree_bench.py "$BIN" "$REPS" "lo-calc=${PID[lo-calc]}" \
  "chromium-table=${PID[chromium-table]}" "chooser-gtk3=${PID[chooser-gtk3]}"
