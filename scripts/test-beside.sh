#!/usr/bin/env bash
#! The builds of the test command that need no desktop, run beside the desktop tests
#! (scripts/test.sh starts this at low priority and waits for it before the phases that use what
#! it built), in two lanes: the release builds the package checks install (their fat LTO links
#! keep one core busy for minutes each), and beside them the Windows and macOS type-check, the
#! Windows-target test binaries and the fuzz targets. Each part's seconds go to TIMES (one
#! "SECONDS|NAME" line a part); a failure in either lane makes the exit non-zero.
# Usage: scripts/test-beside.sh TIMES   (env as scripts/test.sh: CARGO_TARGET_DIR, SKIP_XCHECK)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TIMES="$1"
: > "$TIMES"
# Started in a session of its own (setsid), which Linux schedules as its own group: with
# autogroups on, a group's share of the CPU is set by the group's nice value, not its
# processes', so the group is lowered too, or these builds would take half the machine.
echo 19 2>/dev/null > /proc/self/autogroup || true
part() {
  local name="$1" t rc=0
  shift
  t=$(date +%s)
  echo "==> beside: $name" >&2
  "$@" || rc=$?
  echo "$(( $(date +%s) - t ))|$name (beside)" >> "$TIMES"
  return "$rc"
}
targets=(x86_64-unknown-linux-gnu)
[ "${SKIP_XCHECK:-0}" = 1 ] || targets+=(x86_64-pc-windows-gnu)
checks() {
  if [ "${SKIP_XCHECK:-0}" != 1 ]; then
    part "type-check + clippy for Windows and macOS" scripts/xcheck.sh
    part "build the Windows-target unit tests" scripts/wine-test.sh --build-only
  fi
  part "build the fuzz targets" env CU_FUZZ_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/fuzz" \
    scripts/fuzz.sh --build-only
}
checks &
CHECKS=$!
releases=0
part "release builds: ${targets[*]}" env RELEASE_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/dist" \
  scripts/release.sh "${targets[@]}" || releases=$?
wait "$CHECKS" || exit 1
exit "$releases"
