#!/usr/bin/env bash
#! Builds the npm packages from the release builds of scripts/release.sh: one platform package
#! per binary found (mcp-computer-use-<platform>-<arch>, with `os` and `cpu` so npm installs only
#! the matching one) and the launcher package `mcp-computer-use` (packaging/npm/), each packed
#! with `npm pack` into RELEASE_DIR/npm/. Checks that every version agrees with Cargo.toml.
# Usage: scripts/npm-pack.sh   (env RELEASE_DIR, default dist/)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
OUT="${RELEASE_DIR:-$ROOT/dist}"
PACKS="$OUT/npm"
WORK="$OUT/npm-work"
rm -rf "$PACKS" "$WORK"
mkdir -p "$PACKS" "$WORK"

# The launcher's own manifest must name this version everywhere (no silent mismatch on publish).
node -e '
  const m = require(process.argv[1]), v = process.argv[2];
  const bad = [m.version, ...Object.values(m.optionalDependencies)].filter((x) => x !== v);
  if (bad.length) { console.error(`packaging/npm/mcp-computer-use/package.json: versions ${bad} != ${v}`); process.exit(1); }
' "$ROOT/packaging/npm/mcp-computer-use/package.json" "$VERSION"

# target triple -> npm platform key (os-cpu); MSVC wins over GNU for Windows when both exist.
platform_of() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo linux-x64 ;;
    aarch64-unknown-linux-gnu) echo linux-arm64 ;;
    x86_64-pc-windows-gnu | x86_64-pc-windows-msvc) echo win32-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    *) echo "" ;;
  esac
}

found=0
for target in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-pc-windows-gnu x86_64-pc-windows-msvc aarch64-apple-darwin x86_64-apple-darwin; do
  stage="$OUT/mcp-computer-use-$VERSION-$target"
  [ -d "$stage" ] || continue
  key="$(platform_of "$target")"
  os="${key%-*}"
  cpu="${key#*-}"
  exe=mcp-computer-use
  [ "$os" = win32 ] && exe=mcp-computer-use.exe
  pkg="$WORK/$key"
  rm -rf "$pkg"
  mkdir -p "$pkg/bin"
  cp "$stage/$exe" "$pkg/bin/"
  chmod 0755 "$pkg/bin/$exe"
  libc=""
  [ "$os" = linux ] && libc=', "libc": ["glibc"]'
  cat > "$pkg/package.json" <<EOF
{
  "name": "mcp-computer-use-$key",
  "version": "$VERSION",
  "description": "The mcp-computer-use binary for $key ($target); installed by the mcp-computer-use package.",
  "license": "MIT",
  "os": ["$os"],
  "cpu": ["$cpu"]$libc,
  "files": ["bin/"]
}
EOF
  ( cd "$pkg" && npm pack --silent --pack-destination "$PACKS" >/dev/null )
  echo "[npm-pack] mcp-computer-use-$key-$VERSION.tgz ($target)" >&2
  found=$((found + 1))
done
[ "$found" -gt 0 ] || { echo "[npm-pack] no release build in $OUT (run scripts/release.sh first)" >&2; exit 1; }
cp -r "$ROOT/packaging/npm/mcp-computer-use" "$WORK/launcher"
( cd "$WORK/launcher" && npm pack --silent --pack-destination "$PACKS" >/dev/null )
echo "[npm-pack] mcp-computer-use-$VERSION.tgz (launcher)" >&2
ls -l "$PACKS" >&2
