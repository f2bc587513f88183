#!/usr/bin/env bash
#! Release builds: builds, strips and archives the binary for each target these machines can
#! build, with SHA256SUMS. Every archive carries the TLS listener and client.
#!
#!   x86_64-unknown-linux-gnu    the machine's toolchain (rustup)
#!   aarch64-unknown-linux-gnu   Debian's rustc-web + rust-web-src (-Zbuild-std), aarch64-linux-gnu-gcc
#!   x86_64-pc-windows-gnu       the same route, mingw-w64 (as scripts/wine-test.sh)
#!
#! The MSVC and macOS builds need their own SDKs: .github/workflows/release.yml makes them on
#! native runners.
# Usage: scripts/release.sh [TARGET...]   (default: the three first targets above)
#        env RELEASE_DIR (default dist/), CARGO_TARGET_DIR
set -euo pipefail
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-pc-windows-gnu)
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
OUT="${RELEASE_DIR:-$ROOT/dist}"
BASE_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
mkdir -p "$OUT"

# Cross builds through Debian's toolchain: its standard library sources are built for the target.
cross_build() {
  local target="$1" cc="$2"
  [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] || {
    echo "[release] $target needs Debian's rustc-web, cargo-web and rust-web-src (scripts/install-deps.sh --release)" >&2; exit 1; }
  command -v "$cc" >/dev/null || { echo "[release] $target needs $cc (scripts/install-deps.sh --release)" >&2; exit 1; }
  local upper="${target//-/_}"
  upper="${upper^^}"
  env -u RUSTC_WRAPPER -u RUSTC_WORKSPACE_WRAPPER \
    PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_DIR="$BASE_TARGET_DIR/release-cross" \
    "CARGO_TARGET_${upper}_LINKER=$cc" "CC_${target//-/_}=$cc" \
    /usr/bin/cargo build -q --release --locked -Zbuild-std=std,panic_abort --target "$target" \
    -p mcp-computer-use --features mcp-computer-use/tls
  echo "$BASE_TARGET_DIR/release-cross/$target/release"
}

manifest=()
for target in "${TARGETS[@]}"; do
  echo "[release] $target" >&2
  exe=mcp-computer-use
  case "$target" in
    x86_64-unknown-linux-gnu)
      cargo build -q --release --locked -p mcp-computer-use --target "$target"
      dir="$BASE_TARGET_DIR/$target/release" ;;
    aarch64-unknown-linux-gnu)
      dir="$(cross_build "$target" aarch64-linux-gnu-gcc)" ;;
    x86_64-pc-windows-gnu)
      exe=mcp-computer-use.exe
      dir="$(cross_build "$target" x86_64-w64-mingw32-gcc)" ;;
    *) echo "[release] unknown target $target" >&2; exit 2 ;;
  esac
  stage="$OUT/mcp-computer-use-$VERSION-$target"
  rm -rf "$stage"
  mkdir -p "$stage"
  cp "$dir/$exe" "$stage/"
  cp -r README.md LICENSE docs "$stage/"
  case "$target" in
    *windows*)
      archive="$stage.zip"
      rm -f "$archive"
      ( cd "$OUT" && python3 -m zipfile -c "$archive" "$(basename "$stage")" ) ;;
    *)
      archive="$stage.tar.gz"
      tar -C "$OUT" -czf "$archive" "$(basename "$stage")" ;;
  esac
  size_bin=$(stat -c %s "$stage/$exe")
  size_archive=$(stat -c %s "$archive")
  echo "[release] $target: $exe $((size_bin / 1024)) KiB, $(basename "$archive") $((size_archive / 1024)) KiB" >&2
  manifest+=("$(basename "$archive")")
done
( cd "$OUT" && sha256sum "${manifest[@]}" > SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS )
echo "[release] $OUT/SHA256SUMS" >&2
