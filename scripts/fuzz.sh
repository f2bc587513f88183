#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer through the libfuzzer-sys crate) on the stable toolchain.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    each target for SECONDS (default 60); all by default
#   scripts/fuzz.sh --build-only              build every target and stop (the test command builds
#                                             beside the desktop tests and runs them afterwards)
#
# cargo-fuzz is not needed: the instrumentation flags it passes are stable rustc options
# (-Cpasses=sancov-module, -Cllvm-args=-sanitizer-coverage-*). No address sanitizer (it needs
# nightly; safe Rust does not need it to find what we hunt: panics, overflows, hangs, memory
# beyond -rss_limit_mb). Overflow checks are on.
#
# The committed corpus, fuzz/corpus/TARGET, is minimized: runs read it and write new inputs to a
# scratch corpus under the target directory; with CU_FUZZ_KEEP=1 the inputs that add coverage
# are merged back into fuzz/corpus (then commit them). A crash is written to
# fuzz/artifacts/TARGET/ and fails the run; reproduce it with
#   fuzz/target/x86_64-unknown-linux-gnu/release/TARGET fuzz/artifacts/TARGET/crash-…
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_ONLY=0
[ "${1:-}" = --build-only ] && { BUILD_ONLY=1; shift; }
SECONDS_EACH="${1:-60}"
shift || true
ALL=(text matching config outline extract tools translate)
TARGETS=("${@:-${ALL[@]}}")
[ "${#TARGETS[@]}" -gt 0 ] || TARGETS=("${ALL[@]}")
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
export CARGO_TARGET_DIR="${CU_FUZZ_TARGET_DIR:-$ROOT/fuzz/target}"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
cd "$ROOT/fuzz"
bins=()
for t in "${TARGETS[@]}"; do bins+=(--bin "$t"); done
cargo build --release --locked --target "$TRIPLE" "${bins[@]}"
[ "$BUILD_ONLY" = 0 ] || exit 0
failed=0
for t in "${TARGETS[@]}"; do
  bin="$CARGO_TARGET_DIR/$TRIPLE/release/$t"
  scratch="$CARGO_TARGET_DIR/corpus/$t"
  mkdir -p "corpus/$t" "artifacts/$t" "$scratch"
  echo "[fuzz] $t for ${SECONDS_EACH}s"
  if ! "$bin" "$scratch" "corpus/$t" \
      -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 -max_len=4096 \
      -artifact_prefix="artifacts/$t/" -print_final_stats=1 2> "artifacts/$t/last-run.log"; then
    echo "[fuzz] $t FAILED:"; tail -40 "artifacts/$t/last-run.log"; failed=1
  else
    grep -E "stat::number_of_executed_units|cov:" "artifacts/$t/last-run.log" | tail -2 | sed "s/^/[fuzz] $t: /"
  fi
  if [ "${CU_FUZZ_KEEP:-0}" = 1 ]; then
    "$bin" -merge=1 "corpus/$t" "$scratch" 2>/dev/null
    echo "[fuzz] $t: corpus/$t now $(ls "corpus/$t" | wc -l) inputs"
  fi
done
exit "$failed"
