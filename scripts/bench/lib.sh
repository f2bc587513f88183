#!/usr/bin/env bash
#! The benchmarks' shared preamble, sourced after `set -euo pipefail`: the repository root as the
#! working directory, the test packages, a desktop of the benchmark's own (stopped on exit, after
#! whatever `BENCH_ON_EXIT` says), apps launched into `PID[kind]`, a window's id and title, and
#! the binary and python to measure with.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
declare -gA PID=()
BENCH_ON_EXIT="${BENCH_ON_EXIT:-}"

# bench_desktop N: starts desktop :N, stops it on exit, and exports its environment.
bench_desktop() {
  BENCH_N="$1"
  scripts/desktop/start-desktop.sh "$BENCH_N" >/dev/null
  trap 'eval "$BENCH_ON_EXIT"; scripts/desktop/stop-desktop.sh "$BENCH_N" --purge >/dev/null 2>&1' EXIT
  set -a; . "/tmp/deskenv-$BENCH_N/env"; set +a
}

# bench_launch KIND...: launches apps on the benchmark's desktop; their pids land in PID[KIND].
bench_launch() {
  local k v
  while IFS='=' read -r k v; do PID[$k]=$v; done < <(scripts/desktop/launch-apps.sh "$BENCH_N" "$@")
}

# bench_wid PID: "window-id<TAB>title" of the process's window in the listing $LIST.
bench_wid() {
  python3 -c "import json,sys; w=[x for x in json.loads(sys.argv[1])['windows'] if x.get('pid')==int(sys.argv[2])]; print(w[0]['id'], w[0]['title'], sep='\t')" "$LIST" "$1"
}

# bench_bin: BIN, the server under test (MCP_CU_BIN, else a release build), and PY, the venv's
# python that has the official MCP SDK.
bench_bin() {
  [ -n "${MCP_CU_BIN:-}" ] || cargo build -q --release
  BIN="${MCP_CU_BIN:-${CARGO_TARGET_DIR:-target}/release/mcp-computer-use}"
  PY="${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python"
}
