#!/usr/bin/env bash
#! look_at_screen benchmark: extraction time per fixture and per live window (our snapshot +
#! extraction beside a pyatspi walk of the same window, in one run), then end-to-end
#! look_at_screen with SmolLM2-135M (llama.cpp, OpenAI-compatible API): wall time and the
#! answer's size in o200k tokens beside the window's full text. Prints tables.
# Usage: scripts/bench/look-bench.sh [REPS]   (starts and stops its own desktop on :61 and model server on :18093)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPS="${1:-5}"; N=61; LLM_PORT=18093
scripts/install-deps.sh
cargo build -q --release --example bench
cargo build -q --release
TARGET="${CARGO_TARGET_DIR:-target}/release"
BENCH="$TARGET/examples/bench"; BIN="$TARGET/mcp-computer-use"
BENCH_ON_EXIT='scripts/llm-server.sh stop $LLM_PORT'
bench_desktop $N
eval "$(scripts/llm-server.sh start $LLM_PORT)"
APPS=(calc gtk3 firefox outline:claude_code/finished outline:codex_desktop/finished outline:editor/failing)
bench_launch "${APPS[@]}"
sleep 2
LIST=$("$BIN" list)

echo "Extraction from fixtures (code only, median of >= 20 runs):"
printf '%-48s %-14s %-9s %6s %10s %9s\n' source profile status nodes extract_ms text_tok
"$BENCH" extract "$REPS" tests/fixtures/extract/*.json tests/fixtures/extract/*/*.outline synthetic:300 synthetic:3000 \
  | python3 -c "
import json, sys
for l in sys.stdin:
    r = json.loads(l); s = r['source'].replace('tests/fixtures/extract/', '')
    print('%-48s %-14s %-9s %6d %10.3f %9d' % (s, r['profile'], r['status'], r['nodes'], r['extract_median_ms'], r['full_text_tokens']))"

echo
echo "Live windows: read (our AT-SPI snapshot) + extraction, beside a pyatspi walk of the same window:"
printf '%-34s %6s %9s %10s %9s %8s\n' app nodes read_ms extract_ms py_ms "py/ours"
for a in "${APPS[@]}"; do
  IFS=$'\t' read -r id title < <(bench_wid "${PID[$a]}")
  ours=$("$BENCH" extract "$REPS" "$id")
  py=$(/usr/bin/python3 scripts/bench/pyatspi_walk.py "$REPS" "${PID[$a]}" "$title" 2>/dev/null)
  python3 - "$a" "$ours" "$py" <<'PY'
import json, sys
o, p = json.loads(sys.argv[2]), json.loads(sys.argv[3])
total = o["read_median_ms"] + o["extract_median_ms"]
print("%-34s %6d %9.1f %10.3f %9.1f %7.2fx" % (sys.argv[1], o["nodes"], o["read_median_ms"], o["extract_median_ms"], p["median_ms"], p["median_ms"] / total))
PY
done

echo
echo "End-to-end look_at_screen, SmolLM2-135M on 2 CPU cores (status question, session on, ${REPS} runs):"
echo "(answer_tok: the whole compact JSON answer; format_tok: the same without the model's summary text,"
echo " i.e. what this format costs whatever the model says; text_tok: the window's full text)"
printf '%-34s %8s %8s %10s %10s %10s\n' app wall_s model_s answer_tok format_tok text_tok
for a in "${APPS[@]}"; do
  IFS=$'\t' read -r id title < <(bench_wid "${PID[$a]}")
  text_tok=$("$BENCH" extract 1 "$id" | python3 -c "import json,sys; print(json.load(sys.stdin)['full_text_tokens'])")
  walls=(); models=(); toks=(); ftoks=()
  for i in $(seq 1 "$REPS"); do
    t0=$(date +%s.%N)
    answer=$(MCP_CU_SESSIONS_DIR=/tmp/look-bench-$N MCP_CU_LLM_API=openai MCP_CU_OLLAMA_URL="$MCP_CU_TEST_LLM_URL" MCP_CU_MODEL=smollm2 \
      "$BIN" --ask "Is it finished?" --app "$id" --session bench "run$i" || true)
    t1=$(date +%s.%N)
    compact=$(python3 -c "import json,sys; print(json.dumps(json.loads(sys.stdin.read()), separators=(',',':'), ensure_ascii=False), end='')" <<<"$answer")
    [ "$i" = 1 ] && [ "${LOOK_BENCH_SHOW:-1}" = 1 ] && echo "  $compact" >&2
    walls+=("$(python3 -c "print($t1-$t0)")")
    models+=("$(python3 -c "import json,sys; print(json.loads(sys.argv[1]).get('timing',{}).get('model_wall_seconds',0))" "$compact")")
    toks+=("$(printf '%s' "$compact" | "$BENCH" tokens | python3 -c "import json,sys; print(json.load(sys.stdin)['tokens'])")")
    bare=$(python3 -c "import json,sys; d=json.loads(sys.argv[1]); d['summary']=''; print(json.dumps(d, separators=(',',':'), ensure_ascii=False), end='')" "$compact")
    ftoks+=("$(printf '%s' "$bare" | "$BENCH" tokens | python3 -c "import json,sys; print(json.load(sys.stdin)['tokens'])")")
  done
  python3 - "$a" "$text_tok" "${walls[*]}" "${models[*]}" "${toks[*]}" "${ftoks[*]}" <<'PY'
import statistics, sys
a, text = sys.argv[1], int(sys.argv[2])
wall, model, tok, ftok = ([float(x) for x in s.split()] for s in sys.argv[3:7])
print("%-34s %8.2f %8.2f %10d %10d %10d" % (a, statistics.median(wall), statistics.median(model), statistics.median(tok), statistics.median(ftok), text))
PY
done
rm -rf /tmp/look-bench-$N
