#!/usr/bin/env bash
#! The whole test suite on a fresh Debian 12 machine: installs what is missing, checks format,
#! lints, docs, starts the headless desktop, runs every test against real apps, type-checks the
#! Windows and macOS targets, checks the release builds and packages, stops the desktop. Exits
#! non-zero on any failure. The builds that need no desktop (release, cross checks, fuzz targets)
#! run beside the desktop tests at low priority (scripts/test-beside.sh); a table of every
#! phase's seconds ends the output.
# Usage: scripts/test.sh            (env: DESKENV_DISPLAY, default 58; SKIP_XCHECK=1 to skip the cross check)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
N="${DESKENV_DISPLAY:-58}"
LLM_PORT="${MCP_CU_TEST_LLM_PORT:-18090}"
STATE="/tmp/deskenv-$N"
T0=$(date +%s)
TIMES="$(mktemp /tmp/mcp-cu-test-times.XXXXXX)"
PHASE="" PHASE_T=0
# Starts a phase: closes the one before (its seconds go to TIMES) and prints the new one's start.
phase() {
  local now
  now=$(date +%s)
  [ -z "$PHASE" ] || echo "$(( now - PHASE_T ))|$PHASE" >> "$TIMES"
  PHASE="$*" PHASE_T=$now
  echo "==> [$(( now - T0 ))s] $*" >&2
}
phase_table() {
  [ -z "$PHASE" ] || echo "$(( $(date +%s) - PHASE_T ))|$PHASE" >> "$TIMES"
  PHASE=""
  [ ! -s "${BESIDE_TIMES:-/nonexistent}" ] || cat "$BESIDE_TIMES" >> "$TIMES"
  echo "==> phase times (seconds; 'beside' ran at low priority beside the desktop tests)" >&2
  awk -F'|' 'NF == 2 && $2 != "" { printf "%6d  %s\n", $1, $2 }' "$TIMES" >&2
  echo "$(printf '%6d' $(( $(date +%s) - T0 )))  total" >&2
  rm -f "$TIMES" "${BESIDE_TIMES:-}" "${BESIDE_LOG:-}"
}
export CARGO_TERM_COLOR=never

phase "install packages the tests need"
scripts/install-deps.sh

BESIDE_TIMES="$(mktemp /tmp/mcp-cu-beside-times.XXXXXX)"
BESIDE_LOG="$(mktemp /tmp/mcp-cu-beside-log.XXXXXX)"
# Its own session (so a failure here stops all of it) at the lowest priority: the desktop tests
# come first on a 2-core machine; the builds use what they leave.
setsid nice -n 19 scripts/test-beside.sh "$BESIDE_TIMES" > "$BESIDE_LOG" 2>&1 &
BESIDE_PID=$!
stop_beside() { kill -- -"$BESIDE_PID" 2>/dev/null || true; }
trap 'stop_beside; phase_table' EXIT

phase "cargo fmt --check"
cargo fmt --all -- --check

phase "cargo clippy (host, default features and all features)"
cargo clippy -q --workspace --all-targets -- -D warnings
cargo clippy -q --workspace --all-targets --all-features -- -D warnings
# The Linux backend without the Wayland portal path (a build option users have).
cargo clippy -q -p cu-backend-linux --no-default-features -- -D warnings

phase "cargo doc (RUSTDOCFLAGS=-D warnings)"
RUSTDOCFLAGS="-D warnings" cargo doc -q --workspace --no-deps

phase "a build without desktop adapters answers GUI_UNAVAILABLE"
cargo test -q -p cu-backends --no-default-features

# The binary under test carries the TLS listener (a Linux-only build feature; see docs/configuration.md).
FEATURES=(--features mcp-computer-use/tls)
phase "build"
cargo build -q --workspace --all-targets "${FEATURES[@]}"

phase "start the headless desktop :$N"
cleanup() {
  local rc=$?
  stop_beside
  phase "stop the desktop"
  scripts/llm-server.sh stop "$LLM_PORT" || true
  scripts/desktop/stop-desktop.sh "$N" --purge || true
  # The sandbox must leave no process behind.
  if pgrep -f "Xvfb :$N( |\$)" >/dev/null || pgrep -f "deskenv-$N/" >/dev/null; then
    echo "processes of desktop :$N are still running after stop:" >&2
    pgrep -af "Xvfb :$N( |\$)|deskenv-$N/" >&2
    rc=1
  fi
  phase_table
  exit $rc
}
trap cleanup EXIT
scripts/desktop/start-desktop.sh "$N" >/dev/null
set -a; . "$STATE/env"; set +a
export MCP_CU_TEST_DESKTOP="$N"

phase "start the test model server (llama.cpp + SmolLM2-135M) on :$LLM_PORT"
eval "$(scripts/llm-server.sh start "$LLM_PORT")"

phase "cargo test (unit + end-to-end on the desktop)"
cargo test --workspace "${FEATURES[@]}" -- --test-threads=1

export MCP_CU_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/mcp-computer-use"
phase "MCP tests: the official Python SDK against the binary, over stdio and HTTP"
( cd tests/mcp && "${MCP_CU_VENV:-/var/tmp/mcp-cu-venv}/bin/python" -m pytest -q -p no:cacheprovider )

phase "MCP conformance suite (generic server scenarios, Streamable HTTP)"
scripts/conformance.sh

phase "wait for the builds beside (release, Windows and macOS checks, fuzz targets)"
if ! wait "$BESIDE_PID"; then
  echo "the builds beside the desktop tests failed:" >&2
  tail -n 60 "$BESIDE_LOG" >&2
  exit 1
fi
grep -E '^\[(release|xcheck)\]' "$BESIDE_LOG" >&2 || true

phase "fuzz smoke run: every target for ${FUZZ_SECONDS:-15} s from the committed corpus"
CU_FUZZ_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz" scripts/fuzz.sh "${FUZZ_SECONDS:-15}"

if [ "${SKIP_XCHECK:-0}" != 1 ]; then
  phase "Windows-target unit tests under Wine"
  scripts/wine-test.sh
fi
phase "what users install: release builds, npm packages, MCPB bundle, registration with the real clients"
SKIP_WINDOWS="${SKIP_XCHECK:-0}" scripts/package-test.sh
phase "all tests passed"
