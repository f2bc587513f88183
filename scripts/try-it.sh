#!/usr/bin/env bash
#! The main job on a fresh Linux machine: installs what is missing, starts the sandbox desktop
#! (:57) with a calculator, starts the small test model (llama.cpp + SmolLM2-135M on :18090), then
#! runs the observe/act loop (list, an outline with element ids, 7 × 6 = by id, the effects),
#! asks what the display shows, clicks × 2 = by label and asks again in a session, then runs the
#! self-test, printing each answer. Leaves the desktop and the model running; stop them with
#! `scripts/desktop/stop-desktop.sh 57 --purge; scripts/llm-server.sh stop 18090`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"; cd "$ROOT"
scripts/install-deps.sh
# MCP_CU_BIN: a binary already built (skips the release build).
BIN="${MCP_CU_BIN:-${CARGO_TARGET_DIR:-target}/release/mcp-computer-use}"
[ -n "${MCP_CU_BIN:-}" ] || cargo build -q --release
scripts/desktop/start-desktop.sh 57 >/dev/null
set -a; . /tmp/deskenv-57/env; set +a
scripts/desktop/launch-apps.sh 57 calc >/dev/null
curl -fsS http://127.0.0.1:18090/health >/dev/null 2>&1 || eval "$(scripts/llm-server.sh start 18090)"
export MCP_CU_LLM_API=openai MCP_CU_OLLAMA_URL=http://127.0.0.1:18090 MCP_CU_MODEL=smollm2
step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
step "what this desktop offers"
"$BIN" --health | head -c 1500; echo
step "the observe/act loop an agent runs: list, observe (an outline with element ids), act by id"
WIN="$("$BIN" list | python3 -c 'import json,sys; print(next(w["id"] for w in json.load(sys.stdin)["windows"] if w["app"].lower().endswith("calculator")))')"
STATE="$("$BIN" state "$WIN")"
echo "$STATE" | head -n 30
SID="$(echo "$STATE" | sed -n 's/^state_id: \([^ ]*\).*/\1/p')"
id_of() { echo "$STATE" | sed -n "s/^ *\(e[0-9]*\) button \"$1\".*/\1/p" | head -n 1; }
ACTIONS="[$(for k in 7 × 6 =; do printf '{"type":"click","element_id":"%s"},' "$(id_of "$k")"; done | sed 's/,$//')]"
"$BIN" act "$WIN" "$SID" "$ACTIONS"
step "a question about the window (~100 tokens of JSON; junk from a model is never passed on)"
"$BIN" --ask "What number does the display show?" --app Calculator --session demo try-it
step "click by visible label, then ask again in the same session: what changed"
"$BIN" --click-steps Calculator × 2 =
"$BIN" --ask "What number does the display show?" --app Calculator --session demo try-it
step "first contact on a new OS: the self-test"
"$BIN" selftest
