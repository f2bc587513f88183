#!/usr/bin/env bash
#! The main job on a fresh Linux machine: installs what is missing, starts the sandbox desktop
#! (:57) with a calculator, starts the small test model (llama.cpp + SmolLM2-135M on :18090), then
#! asks "is it showing 42?" the way an agent would, clicks 7 × 6 = by label, and asks again with
#! a session, printing each JSON answer. Leaves the desktop and the model running; stop them with
#! `scripts/desktop/stop-desktop.sh 57 --purge; scripts/llm-server.sh stop 18090`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"; cd "$ROOT"
scripts/install-deps.sh
cargo build -q --release
BIN="${CARGO_TARGET_DIR:-target}/release/mcp-computer-use"
scripts/desktop/start-desktop.sh 57 >/dev/null
set -a; . /tmp/deskenv-57/env; set +a
scripts/desktop/launch-apps.sh 57 calc >/dev/null
curl -fsS http://127.0.0.1:18090/health >/dev/null 2>&1 || eval "$(scripts/llm-server.sh start 18090)"
export MCP_CU_LLM_API=openai MCP_CU_OLLAMA_URL=http://127.0.0.1:18090 MCP_CU_MODEL=smollm2
set -x
"$BIN" --health | head -c 2000; echo
"$BIN" --ask "What number does the display show?" --app Calculator --session demo try-it
"$BIN" --click-steps Calculator 7 × 6 =
sleep 1
"$BIN" --ask "What number does the display show?" --app Calculator --session demo try-it
