#!/usr/bin/env bash
#! Type-checks and lints the workspace for Windows and macOS targets on Linux, without a C
#! cross-compiler: Debian's rustc-web 1.96 + rust-web-src + -Zbuild-std (shared/xcheck recipe).
# Usage: scripts/xcheck.sh [TARGET...]   (default: x86_64-pc-windows-msvc aarch64-apple-darwin x86_64-apple-darwin)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=("$@"); [ ${#TARGETS[@]} -gt 0 ] || TARGETS=(x86_64-pc-windows-msvc aarch64-apple-darwin x86_64-apple-darwin)
[ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] || {
  echo "xcheck needs Debian's rustc-web, cargo-web, rust-web-src and rust-web-clippy (scripts/install-deps.sh installs them)" >&2; exit 1; }
export PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${XCHECK_TARGET_DIR:-${CARGO_TARGET_DIR:-target}/xcheck}"
unset RUSTC_WRAPPER RUSTC_WORKSPACE_WRAPPER
for t in "${TARGETS[@]}"; do
  echo "[xcheck] $t: clippy --workspace --all-targets -D warnings" >&2
  /usr/bin/cargo clippy -q -Zbuild-std --target "$t" --workspace --all-targets -- -D warnings
done
echo "[xcheck] ok: ${TARGETS[*]}" >&2
